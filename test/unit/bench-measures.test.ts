// The benchmark's own measuring helpers: the server's persistence counters read from Prometheus text, and
// a CPU profile cut to a window. A wrong parse here would put wrong numbers in BENCHMARKS.md.
import { describe, expect, it } from 'vitest';
import { areaOf, summarize } from '../../bench/profile/top.js';
import { persistenceDelta, persistenceTotals } from '../../bench/scheduler/server-metrics.js';

const scrape = (update: number, create: number, updateSeconds: number) => `# HELP persistence_requests x
# TYPE persistence_requests counter
persistence_requests{operation="UpdateWorkflowExecution",service_name="history"} ${update - 1}
persistence_requests{operation="UpdateWorkflowExecution",service_name="frontend"} 1
persistence_requests{operation="CreateWorkflowExecution",service_name="history"} ${create}
persistence_latency_bucket{operation="UpdateWorkflowExecution",le="0.01"} 3
persistence_latency_sum{operation="UpdateWorkflowExecution",service_name="history"} ${updateSeconds}
persistence_latency_count{operation="UpdateWorkflowExecution",service_name="history"} ${update}
persistence_errors{operation="UpdateWorkflowExecution"} 7
`;

describe('persistence counters from the dev server', () => {
  it('sums requests and seconds per operation over every other label, ignoring buckets and errors', () => {
    const t = persistenceTotals(scrape(10, 4, 0.5));
    expect(t.get('UpdateWorkflowExecution')).toEqual({ requests: 10, seconds: 0.5 });
    expect(t.get('CreateWorkflowExecution')).toEqual({ requests: 4, seconds: 0 });
  });

  it('reads the OpenTelemetry spelling of the same counters', () => {
    const t = persistenceTotals(
      'persistence_requests_total{operation="GetTasks"} 5\npersistence_latency_seconds_sum{operation="GetTasks"} 0.25\n',
    );
    expect(t.get('GetTasks')).toEqual({ requests: 5, seconds: 0.25 });
  });

  it('reports what a window added, the most time first', () => {
    const delta = persistenceDelta(
      persistenceTotals(scrape(10, 4, 0.5)),
      persistenceTotals(scrape(30, 9, 2)),
    );
    expect(delta).toEqual([
      { operation: 'UpdateWorkflowExecution', requests: 20, seconds: 1.5 },
      { operation: 'CreateWorkflowExecution', requests: 5, seconds: 0 },
    ]);
  });
});

describe('a CPU profile summarized', () => {
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
  const profile = {
    startTime: 1_000,
    endTime: 5_000,
    nodes: [
      { id: 1, callFrame: frame('(root)', '') },
      {
        id: 2,
        callFrame: frame('init', 'file:///x/node_modules/@temporalio/worker/lib/workflow/vm-shared.js'),
      },
      { id: 3, callFrame: frame('(idle)', '') },
    ],
    // sample times: 2000 (init), 3000 (init), 4000 (idle), 5000 (init)
    samples: [2, 2, 3, 2],
    timeDeltas: [1_000, 1_000, 1_000, 1_000],
  };

  it('counts self time by function and by area', () => {
    const s = summarize(profile);
    expect(s.totalMs).toBe(4);
    expect(s.functions[0]).toEqual(['init vm-shared.js:1', 3_000]);
    expect(new Map(s.areas).get('SDK workflow VM (promise hook, stack traces)')).toBe(3_000);
  });

  it('keeps only the samples inside a window of the profile clock', () => {
    const s = summarize(profile, { fromUs: 2_500, toUs: 4_000 });
    expect(s.totalMs).toBe(2); // the samples at 3000 (init) and 4000 (idle)
    expect(new Map(s.functions).get('(idle)')).toBe(1_000);
  });

  it('places our own workflow code apart from the SDK', () => {
    expect(areaOf('file:///repo/src/workflows/schedule/run.ts', 'loop')).toBe('our workflow code');
    expect(areaOf('', '(garbage collector)')).toBe('(garbage collector)');
  });
});
