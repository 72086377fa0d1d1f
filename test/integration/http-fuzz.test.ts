// The HTTP API fuzzed from its own OpenAPI document (schemathesis, scripts/fuzz-api.ts), small enough for
// every `npm test`: a real stack (src/main.ts: dev server, worker, API), a few generated requests per
// operation and phase, and the run must find no server error, no response outside the document (status,
// media type, schema) — so every rejection is a documented application/problem+json 4xx — and no error in
// the server's log. `npm run fuzz` is the same with 200 examples per operation.
//
// schemathesis comes from PyPI (pinned in test/python/requirements-fuzz.txt, installed once into a venv in
// the user cache). When it cannot be installed this test FAILS saying why: it is never skipped silently.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ensureSchemathesis, FuzzSetupError, runFuzz } from '../../scripts/fuzz-api.js';

const EXAMPLES = Number(process.env.FUZZ_TEST_EXAMPLES ?? 10);
// A fixed seed, so a failure here reproduces with `npm run fuzz -- --examples 10 --seed 20261130`.
const SEED = Number(process.env.FUZZ_TEST_SEED ?? 20261130);

describe('HTTP API fuzzing (schemathesis, from /openapi.json)', () => {
  it('schemathesis is installed (pip, pinned, cached in the user cache)', () => {
    let python: string | undefined;
    try {
      python = ensureSchemathesis((line) => console.error(`[fuzz] ${line}`));
    } catch (err) {
      const why = err instanceof FuzzSetupError ? err.message : String(err);
      throw new Error(`schemathesis could not be installed, so the API cannot be fuzzed: ${why}`);
    }
    expect(python).toMatch(/bin\/python$/);
  }, 900_000);

  it('finds no server error and no response outside the OpenAPI document', async () => {
    const result = await runFuzz({
      examples: EXAMPLES,
      seed: SEED,
      // Bounded: a hang is a failure, not a stuck suite.
      timeoutMs: 150_000,
      log: () => {},
    });
    console.log(result.summary.split('\n').slice(0, 8).join('\n'));
    expect(result.problems, result.summary).toEqual([]);
    expect(result.generated, result.summary).toBeGreaterThan(500);
    expect(result.serverErrors, result.summary).toEqual([]);
    // Kept when it fails (the summary names the files), removed when it passes.
    rmSync(result.dir, { recursive: true, force: true });
  }, 240_000);
});
