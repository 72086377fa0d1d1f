/**
 * How a probe (probes.ts) is judged: `right` (the meaning written), `refused` (a refusal or a question
 * where a meaning was written: safe, never silent), or `wrong` (a reading of something else — the outcome
 * issue 43 forbids).
 */
import { InterpretError, type InterpretResult, interpret } from '../../../src/model/interpret.js';
import { previewSlots } from '../../../src/model/slots.js';
import { type Expected, NOW, RIGA } from './corpus-types.js';
import type { Probe } from './probes.js';

const COUNT = 6;

export function runsOf(expected: Expected, now: string = NOW): string[] {
  return previewSlots({
    scheduleId: 'probe',
    timing: expected.timing,
    options: expected.options,
    from: now,
    count: COUNT,
  }).slots.map((s) => s.fireAt);
}

const runSet = (lists: string[][]): string[] => [...new Set(lists.map((l) => l.join(' ')))].sort();

export type Verdict = { verdict: 'right' | 'refused' | 'wrong'; got: string };

export function readProbe(probe: Probe): InterpretResult {
  const now = probe.now ?? NOW;
  return interpret({ text: probe.text, now, timezone: probe.timezone ?? RIGA, count: COUNT }, new Date(now));
}

export function judge(probe: Probe): Verdict {
  let result: InterpretResult;
  try {
    result = readProbe(probe);
  } catch (e) {
    if (!(e instanceof InterpretError)) throw e;
    const problem = e.problem;
    if ('ambiguous' in probe.expect && problem.code === 'AMBIGUOUS') {
      const got = runSet(problem.readings.map((r) => r.next_runs.map((n) => n.fire_at)));
      const want = runSet(probe.expect.ambiguous.map((x) => runsOf(x, probe.now)));
      return {
        verdict: JSON.stringify(got) === JSON.stringify(want) ? 'right' : 'wrong',
        got: `AMBIGUOUS ${JSON.stringify(problem.readings.map((r) => r.timing))}`,
      };
    }
    const got = `${problem.code}: ${problem.reason}`;
    return { verdict: 'refuse' in probe.expect ? 'right' : 'refused', got };
  }
  const got = `${JSON.stringify(result.timing)} ${JSON.stringify({ ...result, timing: undefined, text: undefined, language: undefined, explanation: undefined, notes: undefined, next_runs: undefined })}`;
  if ('refuse' in probe.expect || 'ambiguous' in probe.expect) return { verdict: 'wrong', got };
  const runs = result.next_runs.map((r) => r.fire_at);
  return {
    verdict: JSON.stringify(runs) === JSON.stringify(runsOf(probe.expect, probe.now)) ? 'right' : 'wrong',
    got,
  };
}
