// Every field of a schedule's state has one writer (STATE_OWNERS in src/workflows/schedule/state.ts), and
// every occurrence status and reason is the ledger's to write. This reads the workflow's source and finds
// each write — an assignment, ++/--, a mutating array call, through the state or a local alias of one of
// its fields — and holds it to the table.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from '@swc/core';
import { describe, expect, it } from 'vitest';
import { STATE_OWNERS } from '../../src/workflows/schedule/state.js';

const WORKFLOWS = fileURLToPath(new URL('../../src/workflows', import.meta.url));
const STATE_ROOTS = ['s', 'state', 'this.s', 'this.state', 'run.state', 'this.run.state'];
const OCCURRENCE_FIELDS = new Set([
  'status',
  'reason',
  'target_ref',
  'attempt',
  'emitted_at',
  'finished_at',
  'duplicate_prevented',
]);
const MUTATORS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill']);

interface Node {
  type: string;
  [key: string]: unknown;
}
interface Write {
  file: string;
  field: string;
  kind: 'state' | 'occurrence';
  text: string;
}

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';

/** `this.state.armed[0]` → ['this', 'state', 'armed', '[]']; null when it is not a plain member chain. */
function chainOf(node: unknown): string[] | null {
  if (!isNode(node)) return null;
  if (node.type === 'Identifier') return [node.value as string];
  if (node.type === 'ThisExpression') return ['this'];
  if (node.type === 'TsNonNullExpression' || node.type === 'ParenthesisExpression')
    return chainOf(node.expression);
  if (node.type !== 'MemberExpression') return null;
  const object = chainOf(node.object);
  const property = node.property as Node;
  if (!object) return null;
  return [...object, property.type === 'Identifier' ? (property.value as string) : '[]'];
}

const FIELDS = new Set(Object.keys(STATE_OWNERS));

/** The state field a chain writes into, through a state root or an alias of a field. */
function stateFieldOf(chain: string[], aliases: Map<string, string>): string | null {
  for (const root of STATE_ROOTS) {
    const parts = root.split('.');
    if (parts.every((p, i) => chain[i] === p) && chain.length > parts.length) {
      const field = chain[parts.length]!;
      return FIELDS.has(field) ? field : null;
    }
  }
  return aliases.get(chain[0]!) ?? null;
}

function writesIn(file: string, source: string): Write[] {
  const module = parseSync(source, { syntax: 'typescript', target: 'es2022' });
  const writes: Write[] = [];
  const aliases = new Map<string, string>();
  const record = (target: unknown, text: string) => {
    const chain = chainOf(target);
    if (!chain) return;
    const field = stateFieldOf(chain, aliases);
    if (field) writes.push({ file, field, kind: 'state', text });
    else if (chain.length >= 2 && OCCURRENCE_FIELDS.has(chain.at(-1)!))
      writes.push({ file, field: chain.at(-1)!, kind: 'occurrence', text });
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (!isNode(value) && (typeof value !== 'object' || value === null)) return;
    const node = value as Node;
    if (node.type === 'VariableDeclarator' && isNode(node.id) && node.id.type === 'Identifier') {
      const chain = chainOf(node.init);
      const field = chain && chain.length >= 2 ? stateFieldOf(chain, aliases) : null;
      if (field) aliases.set(node.id.value as string, field);
    }
    if (node.type === 'AssignmentExpression') record(node.left, 'assignment');
    if (node.type === 'UpdateExpression') record(node.argument, 'update');
    if (node.type === 'CallExpression' && isNode(node.callee) && node.callee.type === 'MemberExpression') {
      const callee = chainOf(node.callee);
      const method = callee?.at(-1);
      if (method && MUTATORS.has(method)) record((node.callee as Node).object, `.${method}()`);
      if (callee?.join('.') === 'Object.assign') {
        const target = chainOf((node.arguments as Array<{ expression: unknown }>)[0]?.expression);
        if (target && STATE_ROOTS.includes(target.join('.')))
          writes.push({ file, field: '*', kind: 'state', text: 'Object.assign' });
      }
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'span') visit(child);
  };
  visit(module.body);
  return writes;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

const ownerOf = (file: string) => basename(file, '.ts');
const violations = (writes: Write[]) =>
  writes
    .filter((w) =>
      w.kind === 'occurrence'
        ? ownerOf(w.file) !== 'ledger'
        : w.field === '*' || STATE_OWNERS[w.field as keyof typeof STATE_OWNERS] !== ownerOf(w.file),
    )
    .map((w) => `${w.file.slice(WORKFLOWS.length + 1)}: ${w.kind} ${w.field} (${w.text})`);

describe('the schedule state has one writer per field', () => {
  const writes = sourceFiles(WORKFLOWS).flatMap((file) => writesIn(file, readFileSync(file, 'utf8')));

  it('every write to the state or an occurrence is made by its owner', () => {
    expect(violations(writes)).toEqual([]);
  });

  it('every owner writes what it owns (the check sees the writes it must see)', () => {
    const owners = new Set(writes.filter((w) => w.kind === 'state').map((w) => ownerOf(w.file)));
    expect([...owners].sort()).toEqual(['generator', 'hooks', 'invoker', 'ledger', 'lifecycle']);
    expect(writes.some((w) => w.kind === 'occurrence' && w.field === 'status')).toBe(true);
  });

  it('finds a stray write, through the state, an alias of a field, or an occurrence', () => {
    const stray = `
      function pass(run, s, occ) {
        run.state.buffer = [];
        s.tz.newer = null;
        const queue = s.queue;
        queue.shift();
        this.state.counters.fired++;
        occ.status = 'SKIPPED';
        Object.assign(s, {});
      }`;
    expect(violations(writesIn(join(WORKFLOWS, 'schedule/run.ts'), stray))).toEqual([
      'schedule/run.ts: state buffer (assignment)',
      'schedule/run.ts: state tz (assignment)',
      'schedule/run.ts: state queue (.shift())',
      'schedule/run.ts: state counters (update)',
      'schedule/run.ts: occurrence status (assignment)',
      'schedule/run.ts: state * (Object.assign)',
    ]);
  });
});
