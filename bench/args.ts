// The flags of the bench scripts, read one way (node:util parseArgs underneath). Each flag is declared once
// with its default and a help line, so `--help` cannot drift from what is parsed, and every value is checked
// before a server starts: a typo fails at once with the usage, not as NaN after minutes of setup.
import { parseArgs } from 'node:util';

interface Described {
  help: string;
}
/** A non-negative number (`integer`: a whole one); without a default, undefined when absent. */
interface NumberFlag extends Described {
  type: 'number';
  default: number | undefined;
  integer: boolean;
}
/** Comma-separated non-negative integers, e.g. `--k 3,6`. */
interface NumbersFlag extends Described {
  type: 'numbers';
  default: readonly number[];
}
/** Comma-separated names, e.g. `--kinds a,b`; undefined when absent. */
interface ListFlag extends Described {
  type: 'list';
}
interface ChoiceFlag extends Described {
  type: 'choice';
  choices: readonly string[];
  default: string;
}
/** Free text, undefined when absent. */
interface StringFlag extends Described {
  type: 'string';
}
interface BooleanFlag extends Described {
  type: 'boolean';
}

export type Flag = NumberFlag | NumbersFlag | ListFlag | ChoiceFlag | StringFlag | BooleanFlag;

export const integer = (fallback: number, help: string) =>
  ({ type: 'number', integer: true, default: fallback, help }) as const;
export const decimal = <D extends number | undefined>(fallback: D, help: string) =>
  ({ type: 'number', integer: false, default: fallback, help }) as const;
export const integers = (fallback: readonly number[], help: string) =>
  ({ type: 'numbers', default: fallback, help }) as const;
export const names = (help: string) => ({ type: 'list', help }) as const;
export const oneOf = <const C extends readonly string[]>(choices: C, fallback: C[number], help: string) =>
  ({ type: 'choice', choices, default: fallback, help }) as const;
export const text = (help: string) => ({ type: 'string', help }) as const;
export const toggle = (help: string) => ({ type: 'boolean', help }) as const;

type ValueOf<F extends Flag> = F extends NumberFlag
  ? F['default'] extends number
    ? number
    : number | undefined
  : F extends NumbersFlag
    ? number[]
    : F extends ListFlag
      ? string[] | undefined
      : F extends { type: 'choice'; choices: readonly (infer C)[] }
        ? C
        : F extends StringFlag
          ? string | undefined
          : boolean;

export type BenchArgs<S extends Record<string, Flag>> = { -readonly [K in keyof S]: ValueOf<S[K]> };

class BadFlag extends Error {}

function placeholder(flag: Flag): string {
  switch (flag.type) {
    case 'boolean':
      return '';
    case 'choice':
      return ` ${flag.choices.join('|')}`;
    case 'number':
      return ' <n>';
    case 'numbers':
      return ' <n,…>';
    case 'list':
      return ' <a,…>';
    case 'string':
      return ' <value>';
  }
}

function usage(command: string, flags: Record<string, Flag>): string {
  const rows = Object.entries(flags).map(([name, flag]) => {
    const fallback = 'default' in flag && flag.default !== undefined ? ` (default ${flag.default})` : '';
    return [`--${name}${placeholder(flag)}`, `${flag.help}${fallback}`] as const;
  });
  rows.push(['--help', 'this text']);
  const width = Math.max(...rows.map(([left]) => left.length));
  return [`usage: ${command} [options]`, '', ...rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`)].join(
    '\n',
  );
}

function numberOf(name: string, given: string, whole = false): number {
  const value = Number(given);
  if (given.trim() === '' || !Number.isFinite(value) || value < 0 || (whole && !Number.isInteger(value))) {
    throw new BadFlag(`--${name}: "${given}" is not a non-negative ${whole ? 'integer' : 'number'}`);
  }
  return value;
}

function flagValue(name: string, flag: Flag, raw: string | boolean | undefined): unknown {
  if (flag.type === 'boolean') return raw === true;
  if (raw === undefined) {
    if (flag.type === 'numbers') return [...flag.default];
    return 'default' in flag ? flag.default : undefined;
  }
  const given = raw as string;
  switch (flag.type) {
    case 'number':
      return numberOf(name, given, flag.integer);
    case 'numbers':
      return given.split(',').map((part) => numberOf(name, part, true));
    case 'list':
      return given.split(',').filter((part) => part !== '');
    case 'choice':
      if (!flag.choices.includes(given))
        throw new BadFlag(`--${name}: "${given}" is not one of ${flag.choices.join(', ')}`);
      return given;
    case 'string':
      return given;
  }
}

/**
 * The script's flags from `argv`. `--help` prints the usage and exits 0; an unknown flag, a stray argument
 * or a bad value prints the reason and the usage and exits 2.
 */
export function benchArgs<const S extends Record<string, Flag>>(
  command: string,
  flags: S,
  argv: string[] = process.argv.slice(2),
): BenchArgs<S> {
  const help = usage(command, flags);
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        help: { type: 'boolean' },
        ...Object.fromEntries(
          Object.entries(flags).map(([name, flag]) => [
            name,
            { type: flag.type === 'boolean' ? ('boolean' as const) : ('string' as const) },
          ]),
        ),
      },
    });
    if (values.help) {
      console.log(help);
      process.exit(0);
    }
    return Object.fromEntries(
      Object.entries(flags).map(([name, flag]) => [
        name,
        flagValue(name, flag, (values as Record<string, string | boolean | undefined>)[name]),
      ]),
    ) as BenchArgs<S>;
  } catch (err) {
    // parseArgs' own errors (unknown option, missing value) are as much the caller's slip as a bad value.
    if (!(err instanceof BadFlag) && !(err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      throw err;
    console.error(`${(err as Error).message}\n\n${help}`);
    process.exit(2);
  }
}
