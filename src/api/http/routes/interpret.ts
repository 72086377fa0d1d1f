// POST /v1/interpret: a schedule said in words (docs/words.md) → the structured timing, its explanation,
// notes and next runs; nothing is created. The reading runs on the API's calendar pool, where previews run
// (it computes each reading's next runs with the calendar), through the caller's SDK: the SDK, the HTTP API
// and the CLI answer the same JSON for the same text, `timezone` and `now`. Counted as a read by the
// tenant's rate limit.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InterpretRequest, InterpretResult } from '../../../model/interpret.js';
import type { SchedulerClient } from '../../client.js';
import { COMMON_PROBLEMS, problemResponses } from '../problems.js';

export interface InterpretRouteOptions {
  /** The SDK scoped to the request's principal, on the API's calendar pool. */
  sdkFor: (request: FastifyRequest) => SchedulerClient;
}

export const interpretRoutes: FastifyPluginAsyncZod<InterpretRouteOptions> = async (app, { sdkFor }) => {
  app.post(
    '/v1/interpret',
    {
      schema: {
        tags: ['preview'],
        summary:
          'Read a schedule said in words (English or Russian) into a structured timing (creates nothing)',
        description:
          'The answer is the timing and the calendar options the sentence sets, ready for POST /v1/schedules, with `explanation` (the timing said back in words), `notes` (what the reader chose and why) and the next runs. Deterministic: the same text, `timezone` and `now` give the same answer. A text that reads several ways is 422 AMBIGUOUS with every reading in `readings`; words the reader cannot place are 422 UNREADABLE with `unread` (each word and its offset); a wall-clock rule with no zone in the text and no `timezone` is 422 ZONE_REQUIRED (field `timezone`). Business days ("the first business day of the month") with no country in the text, no `region` and a zone no single country uses are 422 REGION_REQUIRED (field `region`). Nothing runs on the words: store the structured timing (and, for audit, the text as `authored_from`).',
        body: InterpretRequest,
        response: { 200: InterpretResult, ...problemResponses(...COMMON_PROBLEMS, 422) },
      },
    },
    async (request) => sdkFor(request).interpret(request.body),
  );
};
