// POST /v1/preview: the next runs of a timing, on the API's calendar pool, and the timing in words
// (`explanation`); nothing is created.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { explanationOf } from '../../../model/explanation.js';
import { PreviewRequest, PreviewResult } from '../../../model/http.js';
import { previewRunsOn } from '../../client.js';
import { SchedulerError } from '../../errors.js';
import type { SlotRunner } from '../../slot-runner.js';
import { COMMON_PROBLEMS, problemResponses } from '../problems.js';

export interface PreviewRouteOptions {
  calendar: SlotRunner;
}

/** `from` is what the calendar calls the creation instant and the search start. */
function asFromProblem(err: unknown): never {
  if (err instanceof SchedulerError && (err.field === 'createdAt' || err.field === 'after')) {
    throw new SchedulerError('VALIDATION', err.reason, 'from');
  }
  throw err;
}

export const previewRoutes: FastifyPluginAsyncZod<PreviewRouteOptions> = async (app, { calendar }) => {
  app.post(
    '/v1/preview',
    {
      schema: {
        tags: ['preview'],
        summary:
          'The next runs of a timing, with DST and window notes, and the timing in words (creates nothing)',
        body: PreviewRequest,
        response: { 200: PreviewResult, ...problemResponses(...COMMON_PROBLEMS, 422) },
      },
    },
    async (request) => {
      const { timing, from, count, ...options } = request.body;
      const after = from ?? new Date().toISOString();
      const tenant = request.principal!.tenant_id;
      const runs = await previewRunsOn(
        calendar,
        tenant,
        'preview',
        { timing, ...options },
        after,
        after,
        count,
      ).catch(asFromProblem);
      // The rule in words (absent when the explainer cannot say it): after the runs, so a definition the
      // calendar refuses is refused, not explained.
      const explanation = explanationOf({ timing, ...options });
      return { runs, ...(explanation !== undefined ? { explanation } : {}) };
    },
  );
};
