import { RE2JS } from 're2js';

/**
 * Patterns of the `matches` operator (api step assertions) and of response schemas' `pattern`: RE2 syntax, run by
 * re2js, a pure-JavaScript port of RE2 that matches in time linear in the input: a pattern written by a tenant can
 * never stall a worker (no backtracking, no lookaround or backreferences: refused at write time).
 */

const compiled = new Map<string, RE2JS>();
const CACHE_MAX = 2000;

/** The pattern compiled (cached per process), or throws an Error saying why it is not RE2. */
export function compileRe2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (re) return re;
  re = RE2JS.compile(pattern);
  if (compiled.size >= CACHE_MAX) compiled.clear();
  compiled.set(pattern, re);
  return re;
}

/** Why `pattern` is not a valid RE2 pattern, or null. */
export function re2Problem(pattern: string): string | null {
  try {
    compileRe2(pattern);
    return null;
  } catch (err) {
    return (err as Error).message.replace(/^error parsing regexp: /, '');
  }
}

/** Whether `pattern` matches somewhere in `text` (unanchored, as RegExp.test). */
export function re2Test(pattern: string, text: string): boolean {
  return compileRe2(pattern).test(text);
}
