import { issuesFromZod, ValidationError, type Issue } from '@statusvane/shared';
import type { z } from 'zod';

/*
 * One way to answer a bad body: judged in stages (the schema, then the checks that need the database or the
 * configuration), answered once. Each stage runs on what the earlier ones left judgeable, so one 400 names every
 * offending field: a bad `password` does not hide a foreign component in `sections`. A stage skips only a field that
 * already failed its own checks. Monitors (monitors/monitor-validation.ts) add stages of their own on this base.
 */

export type Raw = Record<string, unknown>;
export const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when an issue is on `field` or inside it (`headers.X`, `expectedStatusCodes[3]`). */
export function isAt(path: string, field: string): boolean {
  return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
}
export const hasIssueAt = (issues: Issue[], field: string) => issues.some((i) => isAt(i.path, field));

/** The one 400: `Invalid <noun>: <the fields named>` (the first ten in the message; `details.issues` has them all). */
export function failWith(noun: string, issues: Issue[]): never {
  const fields = [...new Set(issues.map((i) => i.path || '(body)'))];
  const shown = fields.length > 10 ? [...fields.slice(0, 10), `and ${fields.length - 10} more`] : fields;
  throw new ValidationError(`Invalid ${noun}: ${shown.join(', ')}`, issues);
}

/** A field's parsed value when it passed its own checks (undefined when absent or bad): what a later stage judges. */
type Known<S extends z.ZodObject> = <K extends keyof z.output<S> & string>(field: K) => z.output<S>[K] | undefined;

/** `field` of `input` parsed by its own schema in `schema`, when sent and free of issues; else undefined. */
export function knownValue(schema: z.ZodObject, input: Raw, issues: Issue[], field: string): unknown {
  if (hasIssueAt(issues, field) || input[field] === undefined) return undefined;
  const one = (schema.shape[field] as z.ZodType | undefined)?.safeParse(input[field]);
  return one?.success ? one.data : undefined;
}

/**
 * Parses `input` with `schema`, then runs `checks` on every field that passed (`known(field)`), and answers one 400
 * naming every issue either found; the parsed body when there is none. `checks` returns its issues (it throws only
 * for what is not a 400).
 */
export async function judgeBody<S extends z.ZodObject>(
  noun: string,
  schema: S,
  input: unknown,
  checks: (known: Known<S>) => Promise<Issue[]>,
): Promise<z.output<S>> {
  const parsed = schema.safeParse(input);
  const issues = parsed.success ? [] : issuesFromZod(parsed.error);
  if (isObject(input)) {
    const known: Known<S> = (field) => knownValue(schema, input, issues, field) as z.output<S>[typeof field];
    issues.push(...(await checks(known)));
  }
  if (issues.length || !parsed.success)
    failWith(noun, issues.length ? issues : [{ path: '', message: `Invalid ${noun}` }]);
  return parsed.data;
}
