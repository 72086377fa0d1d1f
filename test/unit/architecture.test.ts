// The layering docs/architecture.md promises, checked over the real import graph of src/:
// calendar ← model ← workflows / activities ← api / cli ← main. A violation fails with the file, the import
// and the rule it breaks.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

interface ImportEdge {
  file: string; // relative to src/, e.g. workflows/schedule/run.ts
  specifier: string;
  target: string | null; // relative to src/ for relative imports, null for packages
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(entry.name) ? [path] : [];
  });
}

function importsOf(path: string): ImportEdge[] {
  const text = readFileSync(path, 'utf8');
  const file = relative(src, path);
  const edges: ImportEdge[] = [];
  const pattern =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const specifier = match[3] ?? match[4]!;
    const target = specifier.startsWith('.')
      ? relative(src, resolve(dirname(path), specifier))
          .replace(/\.js$/, '.ts')
          .replace(/\.mjs$/, '.mts')
      : null;
    edges.push({ file, specifier, target, typeOnly: Boolean(match[2]) });
  }
  return edges;
}

const edges = sourceFiles(src).flatMap(importsOf);
const layerOf = (path: string) => path.split('/')[0]!;
const violations = (rule: (edge: ImportEdge) => string | null) =>
  edges.flatMap((edge) => {
    const why = rule(edge);
    return why ? [`${edge.file} imports '${edge.specifier}': ${why}`] : [];
  });

describe('architecture: dependencies run one way', () => {
  it('reads a real import graph', () => {
    // Guards the parser itself: these edges exist today and must be seen.
    expect(
      edges.some((e) => e.file === 'workflows/schedule/state.ts' && e.target === 'model/contracts.ts'),
    ).toBe(true);
    expect(edges.some((e) => e.file === 'api/client.ts' && e.target === 'workflows/definitions.ts')).toBe(
      true,
    );
  });

  it('src/calendar imports only itself and its libraries', () => {
    const allowed = new Set(['luxon', 'rrule', 'zod']);
    expect(
      violations((e) => {
        if (layerOf(e.file) !== 'calendar') return null;
        if (e.target) return layerOf(e.target) === 'calendar' ? null : 'calendar is the bottom layer';
        // the pinned holiday data (pure, compiled in, no I/O), in its one adapter only (issue 43)
        if (e.specifier === 'date-holidays' && e.file === 'calendar/holiday-data.ts') return null;
        return allowed.has(e.specifier) ? null : 'calendar uses only luxon, rrule and zod';
      }),
    ).toEqual([]);
  });

  it('the holiday data stays out of the calendar and the workflows (whose bundle imports the calendar)', () => {
    expect(
      violations((e) =>
        e.target === 'calendar/holiday-data.ts' && ['calendar', 'workflows'].includes(layerOf(e.file))
          ? 'the holiday data is passed to the calendar as a value, built outside it'
          : null,
      ),
    ).toEqual([]);
  });

  it('src/model imports only itself, the calendar, zod and ipaddr.js', () => {
    // ipaddr.js classifies event sink addresses (model/network-address.ts): the API's create-time check and
    // the worker's connect-time check must share one classification, and model is the layer both import.
    const allowed = new Set(['zod', 'ipaddr.js']);
    expect(
      violations((e) => {
        if (layerOf(e.file) !== 'model') return null;
        if (e.target)
          return ['model', 'calendar'].includes(layerOf(e.target)) ? null : 'model sits on calendar';
        return allowed.has(e.specifier)
          ? null
          : 'model uses only zod and ipaddr.js (address classification shared by API and worker)';
      }),
    ).toEqual([]);
  });

  it('workflows and activities never import the boundary (api, cli, runtime, main)', () => {
    const above = ['api', 'cli', 'runtime', 'main.ts', 'worker.ts', 'config.ts'];
    expect(
      violations((e) => {
        if (!['workflows', 'activities'].includes(layerOf(e.file)) || !e.target) return null;
        const layer = layerOf(e.target);
        if (above.includes(layer)) return `${layer} is above ${layerOf(e.file)}`;
        // Workflows see activities only as types (proxies); activities never see workflow code.
        if (layerOf(e.file) === 'workflows' && layer === 'activities' && !e.typeOnly)
          return 'workflow code may only import activity types';
        if (layerOf(e.file) === 'activities' && layer === 'workflows')
          return 'activities do not depend on workflow code';
        return null;
      }),
    ).toEqual([]);
  });

  it('api and cli reach workflows only through their public definitions, and never activities', () => {
    const publicSurface = new Set(['workflows/definitions.ts', 'workflows/search-attributes.ts']);
    expect(
      violations((e) => {
        if (!['api', 'cli'].includes(layerOf(e.file)) || !e.target) return null;
        const layer = layerOf(e.target);
        if (layer === 'activities') return 'the boundary does not call activity implementations';
        if (layer === 'workflows' && !publicSurface.has(e.target))
          return 'import the handler definitions (workflows/definitions.ts), not the implementation';
        if (['main.ts', 'worker.ts', 'runtime'].includes(layer)) return `${layer} is above the boundary`;
        return null;
      }),
    ).toEqual([]);
  });

  it("the schedule's decisions and views are pure: policy.ts and schedule/views.ts call no workflow API", () => {
    // What happens to a due slot (policy) and what a schedule shows (views) are read and unit-tested as plain
    // functions; a `wf.*` call there would make them plumbing again.
    const pure = ['workflows/policy.ts', 'workflows/schedule/views.ts', 'workflows/schedule/state.ts'];
    for (const file of pure) expect(edges.some((e) => e.file === file)).toBe(true);
    expect(
      violations((e) => {
        if (!pure.includes(e.file)) return null;
        if (e.specifier === '@temporalio/workflow') return 'a pure module makes no workflow call';
        if (e.specifier.startsWith('@temporalio/') && !e.typeOnly && e.specifier !== '@temporalio/common')
          return 'a pure module imports Temporal types only';
        const plumbing = ['workflows/clock.ts', 'workflows/metrics.ts', 'workflows/patches.ts'];
        if (e.target && plumbing.includes(e.target) && !e.typeOnly)
          return `${e.target} calls the workflow API`;
        return null;
      }),
    ).toEqual([]);
  });

  it('cli and api are siblings: the CLI takes only types from src/api', () => {
    // The CLI is a client of the HTTP API, not a part of the server: a value import would load the
    // server's modules into it and let the two drift apart silently. What both need lives in src/model.
    expect(
      violations((e) => {
        if (layerOf(e.file) !== 'cli' || !e.target || layerOf(e.target) !== 'api' || e.typeOnly) return null;
        return 'the CLI takes only types from src/api (`import type`): move what both need to src/model';
      }),
    ).toEqual([]);
  });

  it('tells `import type` from a value import', () => {
    // The rule above rests on this: `import { type X }` still loads the module, `import type` does not.
    const typeOnly = (file: string, target: string) =>
      edges.filter((e) => e.file === file && e.target === target).map((e) => e.typeOnly);
    expect(typeOnly('testing/index.ts', 'api/auth.ts')).toEqual([true]);
    expect(typeOnly('cli/preview.ts', 'model/slots.ts')).toEqual([false]);
  });

  it('calendar and workflow code read no wall clock and no randomness (workflow time lives in clock.ts)', () => {
    const offenders = sourceFiles(src)
      .filter((p) => ['calendar', 'workflows'].includes(layerOf(relative(src, p))))
      .filter((p) => !p.endsWith('workflows/clock.ts'))
      .flatMap((p) =>
        readFileSync(p, 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            /Date\.now\(\)|Math\.random\(\)|new Date\(\)/.test(line.replace(/\/\/.*$/, ''))
              ? [`${relative(src, p)}:${i + 1}: ${line.trim()}`]
              : [],
          ),
      );
    expect(offenders).toEqual([]);
  });

  it('workflow code loads no zod: its bundle reaches the contracts through types only', () => {
    // Every module of the workflow bundle is set up again in each cached workflow's context; zod and every
    // contract schema there cost 1.3 MB of bundle and per-workflow CPU and memory (BENCHMARKS.md).
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const e of edges) if (e.file === file && e.target && !e.typeOnly) visit(e.target);
    };
    visit('workflows/index.ts');
    expect(reached.has('workflows/schedule/run.ts')).toBe(true);
    expect([
      ...[...reached].filter((f) => ['model/contracts.ts', 'model/http.ts', 'model/index.ts'].includes(f)),
      ...edges
        .filter((e) => reached.has(e.file) && e.specifier === 'zod')
        .map((e) => `${e.file} imports zod`),
    ]).toEqual([]);
  });

  it('HTTP routes reach Temporal only through the SDK: no route module imports a Temporal package', () => {
    // The routes are thin adapters (src/api/http/routes): what an operation does with Temporal is the
    // SchedulerClient's, so SDK, HTTP and CLI users get the same behaviour.
    const routes = edges.filter((e) => e.file.startsWith('api/http/routes/'));
    expect(routes.some((e) => e.target === 'api/client.ts')).toBe(true);
    expect(
      routes
        .filter((e) => e.specifier.startsWith('@temporalio/'))
        .map((e) => `${e.file} imports ${e.specifier}`),
    ).toEqual([]);
  });

  it("the package's client entry (src/index.ts) reaches no worker, server or test-kit code", () => {
    // What `import 'durable-scheduler'` loads: every module index.ts reaches through value imports.
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const e of edges) if (e.file === file && e.target && !e.typeOnly) visit(e.target);
    };
    visit('index.ts');
    expect(reached.has('api/client.ts')).toBe(true);
    const serverSide = ['worker.ts', 'main.ts', 'config.ts', 'runtime', 'testing', 'cli', 'activities'];
    const packages = /^(@temporalio\/(worker|testing)|fastify|@fastify\/|prom-client)/;
    expect([
      ...[...reached].filter((f) => serverSide.includes(layerOf(f)) || f.startsWith('api/http/')),
      ...edges
        .filter((e) => reached.has(e.file) && !e.target && packages.test(e.specifier))
        .map((e) => `${e.file} imports ${e.specifier}`),
    ]).toEqual([]);
  });
});
