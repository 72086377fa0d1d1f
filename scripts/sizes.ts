// Sizes of the source, per folder: the largest file and function, and every function past a bound (issue 41:
// no function over ~80 lines, no file over ~450 in src/, data tables excepted). `--over 80` lists those.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
// @swc/core comes with @temporalio/worker (its bundler); TypeScript 7's package has no compiler API.
import { parseSync } from '@swc/core';

const root = process.argv.includes('--root') ? process.argv[process.argv.indexOf('--root') + 1]! : 'src';
const over = Number(process.argv.includes('--over') ? process.argv[process.argv.indexOf('--over') + 1] : 80);

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') ? [path] : [];
  });

interface Unit {
  file: string;
  name: string;
  line: number;
  lines: number;
}

interface AstNode {
  type?: string;
  span?: { start: number; end: number };
  id?: { value?: string };
  key?: { value?: string };
  identifier?: { value?: string };
}

const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ClassMethod',
  'Constructor',
]);

function functionsOf(file: string, text: string): Unit[] {
  const module = parseSync(text, { syntax: 'typescript', target: 'es2022' });
  // swc's spans count from where the previous parse ended, in UTF-8 bytes.
  const bytes = Buffer.from(text, 'utf8');
  const base = module.span.start - text.search(/\S/);
  const lineAt = (pos: number) =>
    bytes
      .subarray(0, pos - base)
      .toString('utf8')
      .split('\n').length;
  const units: Unit[] = [];
  const visit = (node: unknown, name: string) => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, name);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as AstNode;
    let here = name;
    if (n.type === 'VariableDeclarator' && n.id?.value) here = n.id.value;
    const declared = n.key?.value ?? n.identifier?.value;
    if ((n.type === 'ClassMethod' || n.type === 'FunctionDeclaration') && declared) here = declared;
    if (n.type === 'Constructor') here = 'constructor';
    if (n.type && FUNCTION_TYPES.has(n.type) && n.span) {
      const line = lineAt(n.span.start);
      units.push({ file, name: here || '<anonymous>', line, lines: lineAt(n.span.end) - line + 1 });
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'span') visit(value, here);
  };
  visit(module.body, '');
  return units;
}

const byFolder = new Map<string, { file: Unit; fn: Unit | null }>();
const long: Unit[] = [];
const longFiles: Unit[] = [];
for (const file of files(root)) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length;
  const folder = relative('.', dirname(file));
  const fns = functionsOf(file, text);
  const largestFn = fns.reduce<Unit | null>((a, b) => (!a || b.lines > a.lines ? b : a), null);
  const entry = byFolder.get(folder);
  const asFile: Unit = { file, name: '', line: 1, lines };
  if (!entry) byFolder.set(folder, { file: asFile, fn: largestFn });
  else {
    if (lines > entry.file.lines) entry.file = asFile;
    if (largestFn && (!entry.fn || largestFn.lines > entry.fn.lines)) entry.fn = largestFn;
  }
  long.push(...fns.filter((f) => f.lines > over));
  if (lines > 450) longFiles.push(asFile);
}
console.log('| folder | largest file | largest function |\n|---|---|---|');
for (const [folder, { file, fn }] of [...byFolder].sort()) {
  console.log(
    `| ${folder} | ${relative(folder, file.file)} ${file.lines} | ${fn ? `${relative(folder, fn.file)}:${fn.line} ${fn.name} ${fn.lines}` : '-'} |`,
  );
}
console.log(`\nfunctions over ${over} lines:`);
for (const f of long.sort((a, b) => b.lines - a.lines))
  console.log(`  ${f.file}:${f.line} ${f.name} ${f.lines}`);
console.log('\nfiles over 450 lines:');
for (const f of longFiles.sort((a, b) => b.lines - a.lines)) console.log(`  ${f.file} ${f.lines}`);
