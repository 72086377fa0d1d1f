/**
 * `npm run chaos` (issue 10): the long fault runs, kept out of `npm test`.
 *
 *   node --import tsx scripts/chaos.ts [--kills 100] [--per-kind 8] [--every 4] [--max-up 6000] [--seed 10]
 *        [--json report.json] [--histories dir]
 *
 * A fresh dev server; schedules of every hand-off kind firing in bursts on one grid; the scheduler worker
 * process SIGKILLed at a random moment of each of its lives and replaced, `--kills` times; then the
 * targets' ledger (job run lines, sink deliveries) is compared with the due slots (see
 * test/integration/chaos-workload.ts). Prints a markdown table; exits 1 if a slot was lost or doubled.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatReport, runKillChaos } from '../test/integration/chaos-workload.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '100' },
    'per-kind': { type: 'string', default: '8' },
    every: { type: 'string', default: '4' },
    'max-up': { type: 'string', default: '6000' },
    seed: { type: 'string', default: '10' },
    json: { type: 'string' },
    histories: { type: 'string' },
  },
});
const t0 = Date.now();
const log = (line: string) =>
  console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(7)} s] ${line}`);

const report = await runKillChaos({
  kills: Number(values.kills),
  perKind: Number(values['per-kind']),
  everyS: Number(values.every),
  maxUpMs: Number(values['max-up']),
  seed: Number(values.seed),
  ...(values.histories ? { historiesDir: values.histories } : {}),
  log,
});
console.log(formatReport(report));
if (report.lost.length) console.log(`lost: ${report.lost.length} slots (all in the JSON report)`);
for (const x of report.stalled) console.log(`stalled: ${JSON.stringify(x)}`);
if (report.doubled.length) console.log(`doubled: ${report.doubled.join(', ')}`);
if (report.strays.length) console.log(`strays: ${report.strays.join(', ')}`);
for (const u of report.unreadable) console.log(`unreadable: ${u.scheduleId}: ${u.error}`);
for (const f of report.workflowTaskFailures)
  console.log(`workflow task failed: ${f.scheduleId} ×${f.count} ${f.cause}: ${f.message}`);
for (const h of report.savedHistories) console.log(`history saved: ${h}`);
if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
const broken =
  report.lost.length +
  report.doubled.length +
  report.strays.length +
  report.wrongKeys +
  report.unreadable.length;
process.exit(broken > 0 ? 1 : 0);
