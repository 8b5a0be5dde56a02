import {
  compareFound,
  JSON_ASSERTION_OPERATORS,
  parseJsonPath,
  resolveJsonPath,
  formatJsonPath,
  type JsonAssertionOperator,
  type JsonAssertionVerdict,
} from '../json-assertion/json-assertion.js';
import { re2Test } from './re2.js';

/** The operators of api step assertions: those of `jsonAssertion`, and `matches` (an RE2 pattern). */
export const STEP_ASSERTION_OPERATORS = [...JSON_ASSERTION_OPERATORS, 'matches'] as const;
export type StepAssertionOperator = (typeof STEP_ASSERTION_OPERATORS)[number];
export const STEP_ASSERTION_SOURCES = ['status', 'header', 'json', 'body', 'responseMs'] as const;
export type StepAssertionSource = (typeof STEP_ASSERTION_SOURCES)[number];

export interface StepAssertion {
  source: StepAssertionSource;
  /** header: the header's name; json: a path (`$.items[0].id`); absent for the other sources. */
  property?: string | undefined;
  operator: StepAssertionOperator;
  value?: string | number | boolean | null | undefined;
}

/** One step's response, as its assertions and extracts read it. */
export interface StepResponse {
  statusCode: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string>>;
  text: string;
  /** The body parsed as JSON, once, on first use (a body that is not JSON: `invalid`). */
  json(): { ok: true; value: unknown } | { ok: false; reason: string };
  responseMs: number;
}

/** The value a source gives, or `missing` (a header absent, a JSON path that does not resolve). */
function actualOf(
  a: StepAssertion,
  r: StepResponse,
): { found: true; value: unknown; label: string } | { found: false; label: string; detail?: string } {
  switch (a.source) {
    case 'status':
      return { found: true, value: r.statusCode, label: 'status' };
    case 'responseMs':
      return { found: true, value: r.responseMs, label: 'responseMs' };
    case 'body':
      return { found: true, value: r.text, label: 'body' };
    case 'header': {
      const name = (a.property ?? '').toLowerCase();
      const value = r.headers[name];
      return value === undefined
        ? { found: false, label: `header ${name}` }
        : { found: true, value, label: `header ${name}` };
    }
    case 'json': {
      const path = a.property ?? '$';
      const doc = r.json();
      if (!doc.ok) return { found: false, label: path, detail: doc.reason };
      const segments = parseJsonPath(path);
      const resolved = resolveJsonPath(doc.value, segments);
      if (!resolved.found)
        return {
          found: false,
          label: path,
          detail: `${path} not found (no ${formatJsonPath(segments.slice(0, resolved.missingAt + 1))})`,
        };
      return { found: true, value: resolved.value, label: path };
    }
  }
}

/** One assertion of a step against its response; never throws. */
export function evaluateStepAssertion(a: StepAssertion, r: StepResponse): JsonAssertionVerdict {
  const actual = actualOf(a, r);
  if (!actual.found) {
    if (a.operator === 'notExists' && !actual.detail?.startsWith('invalid_json')) return { ok: true };
    return { ok: false, detail: actual.detail ?? `${actual.label} not found` };
  }
  if (a.operator === 'matches') {
    const text =
      typeof actual.value === 'string' ? actual.value : typeof actual.value === 'number' ? String(actual.value) : null;
    if (text === null) return { ok: false, detail: `${actual.label}: matches needs a string or a number` };
    return re2Test(String(a.value), text)
      ? { ok: true }
      : { ok: false, detail: `${actual.label} does not match ${JSON.stringify(a.value)}` };
  }
  return compareFound(actual.label, actual.value, a.operator as JsonAssertionOperator, a.value);
}
