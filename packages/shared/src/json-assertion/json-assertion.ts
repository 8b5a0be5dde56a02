/**
 * JSON assertions of http monitors (`jsonAssertion: { path, operator, value? }`): a path parser and an
 * evaluator. Pure: no I/O, no clock. The API can reuse `parseJsonPath` to validate paths at write time.
 *
 * Path syntax (the whole path is trimmed first):
 *   - optional root `$` (only when followed by `.` or `[`: `$oid.x` starts with the key "$oid"), then any
 *     sequence of `.name`, `[0]`, `["key"]` / `['key']`; the path may also start with a bare name
 *     (`data.items[0].status`), a `.` or a `[`.
 *   - dot names run until the next `.` or `[` and may not be empty or contain `]`.
 *   - bracket indices are non-negative decimal integers; bracket strings use `\` to escape the next
 *     character (`["a\"b"]`). Whitespace around an index or quoted key inside brackets is ignored.
 *   - `$`, `` (empty) and `.` alone mean the whole document.
 *   - not supported (rejected as invalid): wildcards `[*]`, negative indices, filters, slices.
 *
 * Resolution:
 *   - only own properties of objects resolve (`__proto__`, `constructor`, `length` never do).
 *   - on an array, a numeric segment is an index; so is a name in canonical integer form
 *     (`items.0` == `items["0"]` == `items[0]`; `items.01` does not resolve). On an object, a
 *     numeric bracket index looks up the key of the same spelling (`obj[0]` == `obj["0"]`).
 *   - a key whose value is `null` exists.
 *
 * Operators (a path that does not resolve fails every operator except `notExists`):
 *   - exists / notExists: whether the path resolves. `value` is ignored.
 *   - eq / neq: strict JSON equality. Primitives compare by type and value (the number 200 does NOT
 *     equal the string "200", true does not equal "true"); arrays compare element-wise in order,
 *     objects by key set and values (key order ignored).
 *   - gt / gte / lt / lte: both sides must be numbers or decimal numeric strings ("12", "-1.5e3";
 *     not "0x10", not ""); anything else fails with "not a number".
 *   - contains / notContains: on a string, substring test with a string `value` (case-sensitive); on
 *     an array, whether some element is JSON-equal to `value`. Other actual types fail.
 *   - every operator except exists / notExists needs a `value`; a missing one fails the check.
 */

export const JSON_ASSERTION_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'notContains',
  'exists',
  'notExists',
] as const;

export type JsonAssertionOperator = (typeof JSON_ASSERTION_OPERATORS)[number];

export interface JsonAssertion {
  path: string;
  operator: JsonAssertionOperator;
  value?: unknown;
}

export type JsonPathSegment = string | number;

export type JsonAssertionVerdict = { ok: true } | { ok: false; detail: string };

export class JsonPathSyntaxError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position} of ${JSON.stringify(path)}`);
    this.name = 'JsonPathSyntaxError';
  }
}

/** Parse a path into segments; throws JsonPathSyntaxError. `$.a["b.c"][0]` -> ['a', 'b.c', 0]. */
export function parseJsonPath(input: string): JsonPathSegment[] {
  const path = input.trim();
  const segments: JsonPathSegment[] = [];
  const fail = (message: string, at: number): never => {
    throw new JsonPathSyntaxError(message, path, at);
  };

  if (path === '' || path === '$' || path === '.') return segments;

  const readName = (start: number): number => {
    let j = start;
    while (j < path.length && path[j] !== '.' && path[j] !== '[') {
      if (path[j] === ']') fail('unexpected "]"', j);
      j++;
    }
    if (j === start) fail('empty name', start);
    segments.push(path.slice(start, j));
    return j;
  };

  let i = 0;
  // `$` is the root only when a `.` or `[` follows: `$oid.x` is a path starting with the key "$oid".
  if (path[0] === '$' && (path[1] === '.' || path[1] === '[')) i = 1;
  else if (path[0] !== '.' && path[0] !== '[') i = readName(0);

  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      i = readName(i + 1);
    } else if (ch === '[') {
      i = readBracket(i + 1);
    } else {
      fail(`unexpected ${JSON.stringify(ch)}; expected "." or "["`, i);
    }
  }
  return segments;

  function skipSpaces(j: number): number {
    while (j < path.length && (path[j] === ' ' || path[j] === '\t')) j++;
    return j;
  }

  function readBracket(start: number): number {
    let j = skipSpaces(start);
    const quote = path[j];
    if (quote === '"' || quote === "'") {
      let key = '';
      j++;
      for (;;) {
        if (j >= path.length) fail('unterminated quoted key', start);
        const c = path[j] as string;
        if (c === '\\') {
          if (j + 1 >= path.length) fail('unterminated quoted key', start);
          key += path[j + 1];
          j += 2;
          continue;
        }
        if (c === quote) {
          j++;
          break;
        }
        key += c;
        j++;
      }
      segments.push(key);
    } else {
      const digitsStart = j;
      while (j < path.length && path[j]! >= '0' && path[j]! <= '9') j++;
      if (j === digitsStart) fail('expected an index (0, 1, ...) or a quoted key inside "[...]"', digitsStart);
      const index = Number(path.slice(digitsStart, j));
      if (!Number.isSafeInteger(index)) fail('index too large', digitsStart);
      segments.push(index);
    }
    j = skipSpaces(j);
    if (path[j] !== ']') fail('expected "]"', j);
    return j + 1;
  }
}

/** Canonical spelling of a parsed path, for messages: `$.data.items[0]["b.c"]`. */
export function formatJsonPath(segments: readonly JsonPathSegment[]): string {
  let out = '$';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

const CANONICAL_INDEX = /^(0|[1-9]\d*)$/;

export type JsonPathResolution = { found: true; value: unknown } | { found: false; missingAt: number };

/** Walk `segments` through a parsed JSON document. `missingAt` is the index of the first segment that did not resolve. */
export function resolveJsonPath(doc: unknown, segments: readonly JsonPathSegment[]): JsonPathResolution {
  let current: unknown = doc;
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k] as JsonPathSegment;
    if (Array.isArray(current)) {
      const index = typeof seg === 'number' ? seg : CANONICAL_INDEX.test(seg) ? Number(seg) : -1;
      if (index < 0 || index >= current.length) return { found: false, missingAt: k };
      current = current[index];
    } else if (current !== null && typeof current === 'object') {
      const key = String(seg);
      if (!Object.hasOwn(current, key)) return { found: false, missingAt: k };
      current = (current as Record<string, unknown>)[key];
    } else {
      return { found: false, missingAt: k };
    }
  }
  return { found: true, value: current };
}

/** Strict structural equality of JSON values (see module docs). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, k) => jsonEqual(x, b[k]));
  }
  if (a !== null && typeof a === 'object') {
    if (b === null || typeof b !== 'object' || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every(
      (k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    );
  }
  return false;
}

const DECIMAL = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A number, or a decimal numeric string, as a finite number; otherwise null. */
export function toComparableNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && DECIMAL.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

const SYMBOL: Record<'gt' | 'gte' | 'lt' | 'lte', string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

function show(v: unknown): string {
  if (v === undefined) return 'undefined';
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Evaluate an assertion against an already parsed JSON document. Never throws: an invalid path or
 * operator is a failed check with a detail saying so.
 */
export function evaluateJsonAssertion(doc: unknown, assertion: JsonAssertion): JsonAssertionVerdict {
  const { operator } = assertion;
  const label = assertion.path.trim() === '' ? '$' : assertion.path.trim();
  let segments: JsonPathSegment[];
  try {
    segments = parseJsonPath(assertion.path);
  } catch (err) {
    return { ok: false, detail: `invalid path: ${(err as Error).message}` };
  }
  if (!(JSON_ASSERTION_OPERATORS as readonly string[]).includes(operator)) {
    return { ok: false, detail: `unknown operator ${JSON.stringify(operator)}` };
  }

  const resolved = resolveJsonPath(doc, segments);
  if (operator === 'notExists') {
    return resolved.found ? { ok: false, detail: `${label} exists (${show(resolved.value)})` } : { ok: true };
  }
  if (!resolved.found) {
    const missing = formatJsonPath(segments.slice(0, resolved.missingAt + 1));
    return { ok: false, detail: `${label} not found (no ${missing})` };
  }
  if (operator === 'exists') return { ok: true };

  return compareFound(label, resolved.value, operator, assertion.value);
}

/**
 * An operator other than exists / notExists applied to a value that was found (`label` names it in the detail):
 * the comparison of a JSON assertion, shared with api steps' assertions on a status, a header, a body or a time.
 */
export function compareFound(
  label: string,
  actual: unknown,
  operator: JsonAssertionOperator,
  expected: unknown,
): JsonAssertionVerdict {
  if (operator === 'exists') return { ok: true };
  if (operator === 'notExists') return { ok: false, detail: `${label} exists (${show(actual)})` };
  if (expected === undefined) {
    return { ok: false, detail: `operator ${operator} needs a value` };
  }

  switch (operator) {
    case 'eq':
      return jsonEqual(actual, expected)
        ? { ok: true }
        : { ok: false, detail: `${label}: expected ${show(expected)}, got ${show(actual)}` };
    case 'neq':
      return jsonEqual(actual, expected)
        ? { ok: false, detail: `${label}: expected anything but ${show(expected)}` }
        : { ok: true };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const a = toComparableNumber(actual);
      if (a === null) return { ok: false, detail: `${label}: ${show(actual)} is not a number` };
      const b = toComparableNumber(expected);
      if (b === null) return { ok: false, detail: `${label}: comparison value ${show(expected)} is not a number` };
      const pass = operator === 'gt' ? a > b : operator === 'gte' ? a >= b : operator === 'lt' ? a < b : a <= b;
      return pass
        ? { ok: true }
        : { ok: false, detail: `${label}: expected ${SYMBOL[operator]} ${show(expected)}, got ${show(actual)}` };
    }
    case 'contains':
    case 'notContains': {
      let contained: boolean;
      if (typeof actual === 'string') {
        if (typeof expected !== 'string') {
          return {
            ok: false,
            detail: `${label}: ${operator} on a string needs a string value, got ${typeName(expected)}`,
          };
        }
        contained = actual.includes(expected);
      } else if (Array.isArray(actual)) {
        contained = actual.some((el) => jsonEqual(el, expected));
      } else {
        return { ok: false, detail: `${label}: ${operator} needs a string or an array, got ${typeName(actual)}` };
      }
      if (operator === 'contains') {
        return contained
          ? { ok: true }
          : { ok: false, detail: `${label}: ${show(actual)} does not contain ${show(expected)}` };
      }
      return contained ? { ok: false, detail: `${label}: ${show(actual)} contains ${show(expected)}` } : { ok: true };
    }
    default:
      return { ok: false, detail: `unknown operator ${JSON.stringify(operator)}` };
  }
}
