import {
  NotFoundError,
  pagination,
  Prisma,
  uuidSchema,
  type Pagination,
  type PaginationQuery,
  type PrismaClient,
} from '@statusvane/shared';
import type { RequestContext } from './auth/context.js';

/** What a lookup is given: the id asked for and the caller's workspace, which every lookup must scope by. */
export interface OwnKey {
  id: string;
  workspaceId: string;
}

/**
 * How findOwn reads one kind of record (declared beside its record mapper): the noun its 404 names, and the query of
 * one id within one workspace. `Db` is what the query needs (`Pick<PrismaClient, 'incident'>`: the client or a
 * transaction).
 */
export interface OwnLookup<Db, Row> {
  noun: string;
  find(db: Db, key: OwnKey): PromiseLike<Row | null | undefined>;
}

/**
 * One of the caller's records by id. A malformed id, another workspace's and a missing one are the same 404
 * (`NotFoundError(noun, id)`): an answer never tells whether an id exists elsewhere.
 */
export async function findOwn<Db, Row>(
  db: NoInfer<Db>,
  ctx: Pick<RequestContext, 'workspace'>,
  lookup: OwnLookup<Db, Row>,
  id: string,
): Promise<Row> {
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError(lookup.noun, id);
  const row = await lookup.find(db, { id, workspaceId: ctx.workspace.id });
  if (!row) throw new NotFoundError(lookup.noun, id);
  return row;
}

/** The rows of one page (`page` counts from 1): what a page's findMany spreads in. */
export interface PageWindow {
  skip: number;
  take: number;
}
export const pageWindow = (query: PaginationQuery): PageWindow => ({
  skip: (query.page - 1) * query.perPage,
  take: query.perPage,
});

/**
 * One page of a list answer, `{ data, pagination }`: `read` gives the count of every matching row and the page's rows
 * (its findMany takes the window: `{ where, orderBy, ...window }`, with the same `where` as the count); both run in
 * one transaction, then the rows are mapped to records. A page past the end is an empty page with the true total.
 */
export async function listPage<Row, Rec>(
  prisma: Pick<PrismaClient, '$transaction'>,
  query: PaginationQuery,
  read: (window: PageWindow) => [Prisma.PrismaPromise<number>, Prisma.PrismaPromise<Row[]>],
  toRecords: (rows: Row[]) => Rec[] | Promise<Rec[]>,
): Promise<{ data: Rec[]; pagination: Pagination }> {
  const [total, rows] = await prisma.$transaction(read(pageWindow(query)));
  return { data: await toRecords(rows), pagination: pagination(query, total) };
}

const jsonTexts = new WeakMap<object, string | (() => string)>();

/**
 * Remembers `json`, exactly `JSON.stringify(answer)`, as the JSON text of an answer a verb built (a record, a page):
 * mountRoutes sends that text rather than serializing the same object again. For answers whose parts were serialized
 * once and shared (monitor records read by one batch: monitor-record.ts recordWithJson). Given as a function, the
 * text is made only when asked for: a console page that renders the answer never pays for its JSON.
 */
export function withJsonText<T extends object>(answer: T, json: string | (() => string)): T {
  jsonTexts.set(answer, json);
  return answer;
}

/** The JSON text withJsonText remembered for this answer, if any. */
export function jsonTextOf(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const json = jsonTexts.get(answer);
  if (typeof json !== 'function') return json;
  const text = json();
  jsonTexts.set(answer, text);
  return text;
}

/** Prisma's unique-constraint violation (P2002): a concurrent write took the slug, address or key first. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}
