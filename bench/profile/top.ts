/**
 * The top of a V8 CPU profile (.cpuprofile, as Chrome DevTools and `node --cpu-prof` write it): self time
 * by function and by where the code lives, so a benchmark can say where a process's CPU went.
 *
 *   node --import tsx bench/profile/top.ts --file <file.cpuprofile> [--top 25]
 */
import { readFileSync } from 'node:fs';
import { benchArgs, integer, text } from '../args.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: our bundle, the SDK's workflow runtime, its worker, Node, or V8 itself. */
export function areaOf(url: string, functionName: string): string {
  if (functionName === 'runInContext' || functionName === '__TEMPORAL_CALL_INTO_SCOPE')
    return 'entering the workflow context (vm runInContext)';
  if (url === '') return functionName.startsWith('(') ? functionName : '(native / V8)';
  if (url.includes('@temporalio/core-bridge')) return 'SDK core bridge (native calls into sdk-core)';
  // Node's source-map cache scans each script run in the workflow context (tsx enables source maps).
  if (url.includes('source_map') || url.includes('source-map')) return 'source maps';
  if (url.startsWith('wasm') || functionName.startsWith('RegExp:') || url.includes('failure-converter'))
    return 'SDK workflow VM (promise hook, stack traces)';
  if (url.includes('@temporalio/worker/lib/workflow/vm-shared'))
    return 'SDK workflow VM (promise hook, stack traces)';
  if (url.includes('@temporalio/worker/lib/workflow')) return 'SDK workflow VM (activation)';
  if (url.includes('@temporalio/workflow')) return 'SDK workflow runtime (in the bundle)';
  if (url.includes('@temporalio/worker')) return 'SDK worker (bridge, pollers)';
  if (url.includes('@temporalio/')) return 'SDK other (client, proto, common)';
  if (url.includes('/src/workflows/') || url.includes('/src/model/') || url.includes('/src/calendar/'))
    return 'our workflow code';
  if (url.includes('/src/activities/')) return 'our activities';
  if (url.includes('protobufjs') || url.includes('long/')) return 'protobuf';
  if (url.includes('@grpc')) return 'gRPC (client)';
  if (url.startsWith('node:')) return 'Node internals';
  if (url.includes('workflow-bundle-') || url.startsWith('evalmachine'))
    return 'the workflow bundle (our workflow code and the SDK workflow runtime)';
  return 'other';
}

/** `window`: keep only the samples taken within [fromUs, toUs] of the profile's own (monotonic) clock. */
export function summarize(profile: CpuProfile, window?: { fromUs: number; toUs: number }) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url.slice(url.lastIndexOf('/') + 1);
    const key = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
    fns.set(key, (fns.get(key) ?? 0) + us);
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { totalMs: total / 1000, functions: sorted(fns), areas: sorted(areas) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = benchArgs('node --import tsx bench/profile/top.ts --file <file.cpuprofile>', {
    file: text('the .cpuprofile to read'),
    top: integer(25, 'functions listed'),
  });
  const file = args.file;
  if (!file) throw new Error('--file <file.cpuprofile> is required');
  const s = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const pct = (us: number) => `${((100 * us) / (s.totalMs * 1000)).toFixed(1)} %`;
  console.log(`${file}: ${(s.totalMs / 1000).toFixed(1)} s sampled\n\n| where | self |\n|---|---:|`);
  for (const [a, us] of s.areas) console.log(`| ${a} | ${pct(us)} |`);
  console.log('\n| function | self |\n|---|---:|');
  for (const [f, us] of s.functions.slice(0, args.top)) console.log(`| \`${f}\` | ${pct(us)} |`);
}
