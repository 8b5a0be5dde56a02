/**
 * How the monitor form reads typed text into the API's JSON values: one place for the http fields and the api
 * steps, so the two read a number, a line list or a header block the same way.
 */

/** A whole number as a number; anything else as typed (the service answers what is wrong with it). */
export const intOf = (s: string): number | string => (/^-?\d{1,15}$/.test(s.trim()) ? Number(s.trim()) : s);

/** Non-empty lines, trimmed. */
export const linesOf = (s: string) =>
  s
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** Comma- or space-separated whole numbers (status codes). */
export const intsOf = (s: string) =>
  s
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(intOf);

/** A JSON primitive as typed (`"ok"`, `200`, `true`, `null`), else the text itself. */
export function jsonValueOf(s: string): unknown {
  try {
    const v: unknown = JSON.parse(s);
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return v;
  } catch {
    // Not JSON: the text as a string.
  }
  return s;
}

/** `Name: value` lines (headers) or `key=value` lines (metadata) as an object; a line without one: an empty value. */
export function pairsOf(s: string, separator: ':' | '='): Record<string, string> {
  return Object.fromEntries(
    linesOf(s).map((l) => {
      const at = l.indexOf(separator);
      return at < 0 ? [l, ''] : [l.slice(0, at).trim(), l.slice(at + 1).trim()];
    }),
  );
}
