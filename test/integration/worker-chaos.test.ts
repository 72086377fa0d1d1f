// The small version of `npm run chaos` (issue 10): 5 SIGKILLs of the scheduler worker process at random
// moments while schedules of every hand-off kind come due in bursts, then the targets' ledger is compared
// with the due slots (test/integration/chaos-workload.ts). The ≥ 100-kill run and its numbers:
// `npm run chaos`.
import { describe, expect, it } from 'vitest';
import { formatReport, runKillChaos } from './chaos-workload.js';

describe('worker SIGKILLed at random moments during bursts of due slots (dev server, real processes)', () => {
  it('5 kills: no due slot lost, none doubled, every delivery under its slot’s id and key', async () => {
    const report = await runKillChaos({ kills: 5, perKind: 2, everyS: 2, maxUpMs: 2500, seed: 5 });
    console.info(`[worker-chaos]\n${formatReport(report)}`);
    expect(report.kills).toHaveLength(5);
    expect(report.expectedSlots).toBeGreaterThanOrEqual(20); // the workload ran (6 schedules × ≥ 3 lives)
    expect(report.lost).toEqual([]);
    expect(report.doubled).toEqual([]);
    expect(report.strays).toEqual([]);
    expect(report.wrongKeys).toBe(0);
    expect(report.unreadable).toEqual([]);
  }, 300_000);
});
