import { issuesFromZod, ValidationError, type Issue } from '@statusvane/shared';
import { z } from 'zod';
import type { ServiceContext } from './context.js';

/*
 * One way to answer a bad body: judged in stages (the schema, then the checks that need the database or the
 * configuration), answered once. Each stage runs on what the earlier ones left judgeable, so one 400 names every
 * offending field: a bad `password` does not hide a foreign component in `sections`. A stage skips only a field that
 * already failed its own checks. The schema is the route's (the one the document shows); the stages are the
 * BodyChecks written beside each service that needs them (monitors: monitors/monitor-validation.ts).
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
type Known<S extends z.ZodType> = S extends z.ZodObject
  ? <K extends keyof z.output<S> & string>(field: K) => z.output<S>[K] | undefined
  : (field: string) => unknown;

/** `field` of `input` parsed by its own schema in `schema`, when sent and free of issues; else undefined. */
export function knownValue(schema: z.ZodObject, input: Raw, issues: Issue[], field: string): unknown {
  if (hasIssueAt(issues, field) || input[field] === undefined) return undefined;
  const one = (schema.shape[field] as z.ZodType | undefined)?.safeParse(input[field]);
  return one?.success ? one.data : undefined;
}

/** What the checks of a body see: the object sent and what its schema made of it. */
export interface Judging<S extends z.ZodType> {
  /** The body as sent (checks run only on a JSON object: anything else is the schema's to refuse). */
  body: Raw;
  /** The schema's issues: a check skips a field that already failed, and may restate an issue it knows better. */
  issues: Issue[];
  /** A field's value when the schema found no issue in it (an object schema parses it with the field's schema). */
  known: Known<S>;
  /** What the schema made of the body, when it found no issue. */
  value?: z.output<S> | undefined;
}

/**
 * Parses `input` with `schema`, then runs `judge`, which answers every issue of the body: the schema's
 * (`issues`, kept or restated) and those of the stages that need more than the schema (the database, the
 * configuration, the SSRF guard), each run on the fields that passed the earlier ones. One 400 names them all
 * (`Invalid <noun>: ...`); the parsed body when there is none. `judge` throws only for what is not a 400.
 */
export async function judgeBody<S extends z.ZodType>(
  noun: string,
  schema: S,
  input: unknown,
  judge: (at: Judging<S>) => Promise<Issue[]>,
): Promise<z.output<S>> {
  const parsed = schema.safeParse(input);
  let issues = parsed.success ? [] : issuesFromZod(parsed.error);
  if (isObject(input)) {
    const schemaIssues = issues;
    const known = ((field: string) =>
      schema instanceof z.ZodObject
        ? knownValue(schema, input, schemaIssues, field)
        : hasIssueAt(schemaIssues, field)
          ? undefined
          : input[field]) as Known<S>;
    issues = await judge({ body: input, issues: [...schemaIssues], known, value: parsed.data });
  }
  if (issues.length || !parsed.success)
    failWith(noun, issues.length ? issues : [{ path: '', message: `Invalid ${noun}` }]);
  return parsed.data;
}

/**
 * The checks of a request body that its schema cannot make, declared with the schema on the route (`checks` of a
 * BodySpec, routes/define-route.ts): mountRoutes runs the schema and these together (judgeBody) and hands the service
 * a body that passed both. Written beside the service verb they guard, which then trusts its typed input; what can
 * change between the checks and the write (a component deleted meanwhile) the service judges again in its write.
 */
export interface BodyChecks<S extends z.ZodType, D> {
  /** The body's name in the 400: `Invalid <noun>: <fields>`. */
  noun: string;
  /** Every issue of the body (see judgeBody), with the caller and the path parameters (the record a PATCH changes). */
  judge: (deps: D, at: Judging<S> & { ctx: ServiceContext; params: Record<string, string> }) => Promise<Issue[]>;
}

/**
 * A body judged as mountRoutes judges a route's (its schema, then `checks`), for the callers of a service that have
 * no route (the admin CLI, tests, the bench).
 */
export function judgeInput<S extends z.ZodType, D>(
  schema: S,
  checks: BodyChecks<S, D>,
  deps: D,
  at: { ctx: ServiceContext; params?: Record<string, string> },
  input: unknown,
): Promise<z.output<S>> {
  return judgeBody(checks.noun, schema, input, (judging) =>
    checks.judge(deps, { ...judging, ctx: at.ctx, params: at.params ?? {} }),
  );
}
