import { AppError, issuesFromZod, ValidationError, type Pagination, type PaginationQuery } from '@statusvane/shared';
import type { z } from 'zod';
import type { ServiceContext } from '../services/context.js';
import type { FlashMessage } from '../views/layout.js';
import type { PageAnswer } from './define-page.js';

/** Issues of a refused write, by form field, to show beside each field; `rest` names the ones no field shows. */
export interface FormIssues {
  byField: Record<string, string>;
  rest: string[];
}

/** The field an issue path belongs to: `componentIds[2]` and `steps[0].targets[1].target` name their top field. */
const topField = (path: string) => path.split(/[.[]/)[0] ?? '';

/**
 * A refused write as a page shows it: a 400's issues beside the fields of `fields` that they name (the first issue of
 * each field; an exact path such as `steps[0].delayMinutes` wins over its top field), the others in `rest`; any other
 * refusal (a 409 conflict such as a taken slug) in `rest` as its message. Null for an error the page does not show
 * (a stale version, a 403, a 404, an outage): those go on to their own pages.
 */
export function formIssuesOf(
  err: unknown,
  fields: readonly string[],
  /** The form's name for an issue path, where the form names fields otherwise (`steps[0].delayMinutes` ...). */
  fieldOf: (path: string) => string = (path) => path,
): FormIssues | null {
  if (!(err instanceof AppError)) return null;
  if (err.code === 'conflict') return { byField: {}, rest: [err.message] };
  if (err.code !== 'invalid_request') return null;
  const issues = (err.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
  const known = new Set(fields);
  const out: FormIssues = { byField: {}, rest: [] };
  for (const issue of issues) {
    const { message } = issue;
    const path = fieldOf(issue.path);
    const key = known.has(path) ? path : known.has(topField(path)) ? topField(path) : null;
    if (key !== null && out.byField[key] === undefined) out.byField[key] = message;
    else if (key === null) out.rest.push(path ? `${path}: ${message}` : message);
  }
  if (issues.length === 0) out.rest.push(err.message);
  return out;
}

/** The status a page answers a refusal formIssuesOf showed with: 400 for issues, 409 for a conflict. */
export const issueStatus = (err: unknown) => (err instanceof AppError && err.code === 'conflict' ? 409 : 400);

/** Whether a write was refused because the form's version is stale (its If-Match failed). */
export const isStaleVersion = (err: unknown) => err instanceof AppError && err.code === 'precondition_failed';

/** What a page says above the current values when its form's version was stale (`what`: "This webhook"). */
export const staleFlash = (what: string): FlashMessage => ({
  kind: 'error',
  text: `${what} was changed by someone else since the page was shown: below is how it is now. Nothing was saved; make your change again if it still applies.`,
});

/**
 * A form's write as its page answers it: what `write` answers (a redirect, or a page such as a secret shown once);
 * a stale version, `stale()` (the page with the current values, 409); a refusal the form shows (400 issues beside
 * their fields, a 409 conflict), `again(issues, status)` with the typed values; anything else (403, 404, an outage)
 * goes on to the error pages.
 */
export async function answerForm(
  write: () => Promise<PageAnswer>,
  refused: {
    fields: readonly string[];
    fieldOf?: (path: string) => string;
    again: (issues: FormIssues, status: number) => PageAnswer | Promise<PageAnswer>;
    stale?: () => PageAnswer | Promise<PageAnswer>;
  },
): Promise<PageAnswer> {
  try {
    return await write();
  } catch (err) {
    if (refused.stale && isStaleVersion(err)) return refused.stale();
    const issues = formIssuesOf(err, refused.fields, refused.fieldOf);
    if (!issues) throw err;
    return refused.again(issues, issueStatus(err));
  }
}

/**
 * `ctx` with the form's `version` as If-Match: an edit form carries the version it was drawn from, and a write after
 * someone else's fails (412, shown as a 409 page with the current values). A form without a usable version writes
 * unconditionally, as a request without If-Match does.
 */
export function withFormVersion(ctx: ServiceContext, form: Record<string, string>): ServiceContext {
  const version = Number(form.version);
  return Number.isSafeInteger(version) && version > 0 ? { ...ctx, ifMatch: [version] } : ctx;
}

/** The empty form field as "not given": forms send every field, the API's bodies leave out what is not set. */
export const given = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);

/** Every record of a paged list (the choices of a form: components, policies), at most `max`. */
export async function readAll<T>(
  page: (query: PaginationQuery) => Promise<{ data: T[]; pagination: Pagination }>,
  max = 1000,
): Promise<T[]> {
  const out: T[] = [];
  for (let n = 1; out.length < max; n++) {
    const { data, pagination } = await page({ page: n, perPage: 250 });
    out.push(...data);
    if (n >= pagination.totalPages || data.length === 0) break;
  }
  return out.slice(0, max);
}

/**
 * A page's query by its strict schema: an unknown, repeated or malformed parameter is a 400 page (never a 500, and
 * never silently ignored), as the API's strict queries are.
 */
export function queryOf<S extends z.ZodType>(schema: S, query: Record<string, unknown>, page: string): z.output<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success)
    throw new ValidationError(
      `This address has a parameter the ${page} page does not know.`,
      issuesFromZod(parsed.error),
    );
  return parsed.data;
}
