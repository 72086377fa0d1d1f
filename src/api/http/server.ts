import type { Connection } from '@temporalio/client';
import Fastify, { type FastifyInstance } from 'fastify';

export interface ApiDependencies {
  connection: Connection;
  namespace: string;
}

/** The HTTP API under /v1. */
export function buildApi(deps: ApiDependencies): FastifyInstance {
  const app = Fastify({ logger: false });

  // Liveness plus a real round trip to Temporal, so a load balancer stops routing here when the
  // scheduler cannot reach its server.
  app.get('/v1/health', async (_request, reply) => {
    try {
      await deps.connection.workflowService.getSystemInfo({});
      return { status: 'ok', temporal: 'reachable', namespace: deps.namespace };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', temporal: (err as Error).message });
    }
  });

  return app;
}
