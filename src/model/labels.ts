// Labels on a schedule and the selectors that pick schedules by them (issue 42), in Kubernetes' grammar so
// that an operator reads `team=payments,env!=dev` as they would in kubectl. Keys and values follow its
// syntax rules (a key an optional DNS prefix and a name, a value a name or empty); the selector grammar is
// its equality- and set-based one. Hand-written: the grammar is a dozen lines, and the npm packages that
// parse it are unmaintained ports. Labels are stored as a search attribute of tokens (`labelTokens`) so
// that a list can filter on them on the server; what the server cannot express exactly is matched here.
// No zod here: the schedule workflow computes the tokens (the `Labels` schema is in ./contracts.ts).

/** At most this many labels on one schedule. */
export const MAX_LABELS = 16;
/** Their tokens together (labelTokens, as JSON) stay within a search attribute's value limit (2 KB). */
export const MAX_LABEL_TOKENS_BYTES = 1800;

const NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const DNS_PREFIX = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Why `key` is not a label key, or null. */
export function labelKeyProblem(key: string): string | null {
  const slash = key.indexOf('/');
  const [prefix, name] = slash < 0 ? [null, key] : [key.slice(0, slash), key.slice(slash + 1)];
  if (prefix !== null && (prefix.length === 0 || prefix.length > 253 || !DNS_PREFIX.test(prefix)))
    return 'a key prefix is a DNS subdomain (lower-case letters, digits, - and .), at most 253 characters';
  if (!NAME.test(name))
    return 'a key name is 1 to 63 letters, digits, - _ or ., starting and ending with a letter or digit';
  return null;
}

/** Why `value` is not a label value, or null. */
export function labelValueProblem(value: string): string | null {
  return value === '' || NAME.test(value)
    ? null
    : 'a value is empty, or 1 to 63 letters, digits, - _ or ., starting and ending with a letter or digit';
}

/**
 * The search attribute's tokens: `key=value` for each label and `key` alone, so that both "has this value"
 * and "has this key" are one membership test on the server.
 */
export const labelTokens = (labels: Readonly<Record<string, string>>): string[] =>
  Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([key, value]) => [key, `${key}=${value}`]);

export type Requirement =
  | { key: string; op: 'exists' | 'absent' }
  | { key: string; op: 'in' | 'notin'; values: string[] };

/** A selector that does not parse: where in the text, and why. */
export class LabelSelectorError extends Error {
  constructor(
    readonly selector: string,
    readonly at: number,
    readonly reason: string,
  ) {
    super(`label selector ${JSON.stringify(selector)}, at character ${at + 1}: ${reason}`);
    this.name = 'LabelSelectorError';
  }
}

const KEY_CHARS = /[A-Za-z0-9._\-/]/;

/**
 * Parses a selector: requirements separated by commas, all of which must hold — `key`, `!key`,
 * `key=value` (or `==`), `key!=value`, `key in (a,b)`, `key notin (a,b)`. `key!=value` and `notin` hold
 * for a schedule without the key, as in Kubernetes. The empty selector selects everything.
 */
export function parseLabelSelector(selector: string): Requirement[] {
  const requirements: Requirement[] = [];
  let i = 0;
  const fail = (reason: string): never => {
    throw new LabelSelectorError(selector, Math.min(i, selector.length), reason);
  };
  const skipSpaces = () => {
    while (selector[i] === ' ') i++;
  };
  const word = (what: string): string => {
    skipSpaces();
    const start = i;
    while (i < selector.length && KEY_CHARS.test(selector[i]!)) i++;
    if (i === start && what === 'key') fail('a key is expected');
    return selector.slice(start, i);
  };
  /** The value just read, or a failure pointing at its first character. */
  const checked = (value: string): string => {
    const problem = labelValueProblem(value);
    if (problem) i -= value.length;
    return problem ? fail(problem) : value;
  };
  const valueSet = (): string[] => {
    skipSpaces();
    if (selector[i] !== '(') fail('"(" is expected after in / notin');
    i++;
    const values: string[] = [];
    for (;;) {
      values.push(checked(word('value')));
      skipSpaces();
      if (selector[i] === ',') i++;
      else if (selector[i] === ')') break;
      else fail('"," or ")" is expected');
    }
    i++;
    return values;
  };
  skipSpaces();
  if (i === selector.length) return [];
  for (;;) {
    skipSpaces();
    const negated = selector[i] === '!';
    if (negated) i++;
    const keyAt = i;
    const key = word('key');
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) {
      i = keyAt;
      fail(keyProblem);
    }
    skipSpaces();
    if (negated) requirements.push({ key, op: 'absent' });
    else if (selector.startsWith('!=', i)) {
      i += 2;
      requirements.push({ key, op: 'notin', values: [checked(word('value'))] });
    } else if (selector[i] === '=') {
      i += selector.startsWith('==', i) ? 2 : 1;
      requirements.push({ key, op: 'in', values: [checked(word('value'))] });
    } else if (/^in[ (]/.test(selector.slice(i, i + 3))) {
      i += 2;
      requirements.push({ key, op: 'in', values: valueSet() });
    } else if (/^notin[ (]/.test(selector.slice(i, i + 6))) {
      i += 5;
      requirements.push({ key, op: 'notin', values: valueSet() });
    } else requirements.push({ key, op: 'exists' });
    skipSpaces();
    if (i === selector.length) return requirements;
    if (selector[i] !== ',') fail('"," is expected between requirements');
    i++;
  }
}

/** Whether labels satisfy every requirement. */
export function selects(
  requirements: readonly Requirement[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return requirements.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    if (!('values' in r)) return has === (r.op === 'exists');
    const listed = has && r.values.includes(labels[r.key]!);
    return r.op === 'in' ? listed : !listed;
  });
}

/**
 * The requirements a server can test as membership of a token (labelTokens): each is one token, or one of
 * several. Negations are left to `selects` over what the list returns (a schedule without labels has no
 * attribute at all, which a server's `!=` does not match).
 */
export function requiredTokens(requirements: readonly Requirement[]): string[][] {
  return requirements.flatMap((r) =>
    r.op === 'exists' ? [[r.key]] : r.op === 'in' ? [r.values.map((v) => `${r.key}=${v}`)] : [],
  );
}
