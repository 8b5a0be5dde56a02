import type pg from 'pg';
import type { Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from './prisma.js';

/**
 * The second way to query PostgreSQL, for hot, fixed statements only (docs/adr/0021-hot-statements-on-the-pool.md):
 * straight to node-postgres, on the pool Prisma's adapter uses (createPrisma makes it and registers it here), as a named
 * prepared statement: parsed and planned once per connection, sent as a name and values afterwards, and no Prisma
 * query compiler, parameter handling or result mapping on the way. Rows come back as node-postgres types them (Date for
 * timestamps, parsed JSON, arrays; text for enums and bigint: cast in the statement what must be a number). Errors are
 * node-postgres's own, which isUnavailableError (unavailable.ts) recognises as it does Prisma's.
 */
export interface HotStatement {
  /** The prepared statement's name: the same text, the same name, in every connection of the process. */
  readonly name: string;
  readonly text: string;
}

const statements = new Map<string, HotStatement>();

/**
 * A hot statement, declared once at module level with `$1`-style parameters. A connection keeps every statement it
 * prepared until it closes, so the set must stay small and fixed: never text built per call.
 */
export function hotStatement(text: string): HotStatement {
  let statement = statements.get(text);
  if (statement === undefined) statements.set(text, (statement = { name: `sv_hot_${statements.size + 1}`, text }));
  return statement;
}

/**
 * A batched read as two hot statements: `one` matches a single key (`= $1`), `many` the keys of a batch (`= ANY($1)`).
 * PostgreSQL plans a prepared statement afresh at each of its first five runs, then keeps a generic plan (one that does
 * not look at the values) only if that plan's estimated cost is no higher than the custom plans': for `= ANY($1)` it
 * assumes ten elements, so against the one or two keys a batch usually has, the generic plan never wins and every run
 * is planned again (a token read: about 0.1 ms of planning for 0.03 ms of execution). `= $1` estimates the same either
 * way, so `one` is planned five times per connection and never after. Choose with `forKeys`.
 */
export interface HotBatchStatement {
  readonly one: HotStatement;
  readonly many: HotStatement;
}

/** A HotBatchStatement of two texts that differ only in their match, `= $1` in `one` and `= ANY($1)` in `many`. */
export function hotBatchStatement(one: string, many: string): HotBatchStatement {
  return { one: hotStatement(one), many: hotStatement(many) };
}

/**
 * The statement and values of a batch: `keyed` holds one array per key column, in parameter order first (`$1`...), one
 * entry per key, `rest` the parameters after them. A single key reads through `one`, its arrays' only entries as the
 * values; more through `many`, with the arrays.
 */
export function forKeys(
  batch: HotBatchStatement,
  keyed: ReadonlyArray<readonly unknown[]>,
  rest: readonly unknown[] = [],
): [HotStatement, unknown[]] {
  return keyed[0]?.length === 1 ? [batch.one, [...keyed.map((k) => k[0]), ...rest]] : [batch.many, [...keyed, ...rest]];
}

const pools = new WeakMap<object, pg.Pool>();

/** Called by createPrisma: `pool` is the one its adapter queries through. */
export function registerHotPool(prisma: object, pool: pg.Pool): void {
  pools.set(prisma, pool);
}

/** A transaction of hotTransaction: one connection, held until it commits or rolls back. */
export class HotTransaction {
  /** False once committed or rolled back: a statement after that would run outside the transaction. */
  open = true;
  constructor(readonly client: pg.PoolClient) {}
}

function poolOf(prisma: PrismaClient): pg.Pool {
  const pool = pools.get(prisma);
  if (!pool) throw new Error('hotQuery: this PrismaClient was not made by createPrisma');
  return pool;
}

/** Runs a hot statement on the pool of `db` (one connection, no transaction), or in the transaction `db`. */
export async function hotQuery<R>(
  db: PrismaClient | HotTransaction,
  statement: HotStatement,
  values: readonly unknown[],
): Promise<R[]> {
  return (await hotResult(db, statement, values)).rows as R[];
}

/**
 * sqlRows's shapes that become named (prepared) statements: a monitor insert's text varies with the optional fields a
 * create sets, so a client sending ever new combinations could otherwise leave each connection holding an unbounded
 * set. Past this many, a new text runs as an unnamed statement (parsed and planned on every call, kept by no one).
 */
const SQL_SHAPES_PREPARED = 64;
let sqlShapes = 0;

/**
 * The statement a template's text runs as: the hot statement of that text if there is one, a new one while the shapes
 * last, else an unnamed one (name '').
 */
function shapeStatement(text: string): HotStatement {
  const known = statements.get(text);
  if (known) return known;
  if (sqlShapes >= SQL_SHAPES_PREPARED) return { name: '', text };
  sqlShapes += 1;
  return hotStatement(text);
}

async function hotResult(
  db: PrismaClient | HotTransaction,
  statement: HotStatement,
  values: readonly unknown[],
): Promise<pg.QueryResult> {
  let target: pg.Pool | pg.PoolClient;
  if (db instanceof HotTransaction) {
    if (!db.open) throw new Error('hotQuery: the transaction has ended');
    target = db.client;
  } else {
    target = poolOf(db);
  }
  // An empty name is node-postgres's unnamed statement (shapeStatement's overflow).
  const { name, text } = statement;
  return target.query(name ? { name, text, values: values as unknown[] } : { text, values: values as unknown[] });
}

/** A transaction of either kind: Prisma's interactive one, or a hotTransaction. */
export type SqlTransaction = Prisma.TransactionClient | HotTransaction;

/** Where a Prisma.sql template can run: the client or a transaction of either kind (sqlRows). */
export type SqlClient = PrismaClient | SqlTransaction;

/**
 * A Prisma.sql template's rows: through Prisma on its client or in its transaction, or, in a hotTransaction, as the
 * hot statement its text names. So a statement written once serves a write in either kind of transaction (the
 * idempotency hook's stored answer, writeTogether, the checks of a monitor write). Only for templates whose text is
 * fixed, as hotStatement requires: the values vary, and the text is one of a few shapes the code fixes (a monitor
 * insert's columns by monitor type), never one per call.
 */
export async function sqlRows<R>(db: SqlClient, sql: Prisma.Sql): Promise<R[]> {
  if (db instanceof HotTransaction) return hotQuery<R>(db, shapeStatement(sql.text), sql.values);
  return db.$queryRaw<R[]>(sql);
}

/** sqlRows for a statement whose rows nobody reads (a lock, a write): the number of rows it gave or wrote. */
export async function sqlExecute(db: SqlClient, sql: Prisma.Sql): Promise<number> {
  if (db instanceof HotTransaction) return (await hotResult(db, shapeStatement(sql.text), sql.values)).rowCount ?? 0;
  return db.$executeRaw(sql);
}

const ignore = () => undefined;

/**
 * Runs `fn` in a transaction on one connection of the pool of `prisma` (BEGIN, fn's hot statements, COMMIT; ROLLBACK
 * when fn throws, which is then rethrown). Waiting for a connection is bounded by the pool's connect timeout, each
 * statement by the statement and query timeouts (createPrisma), as Prisma's transactions are.
 */
export async function hotTransaction<T>(prisma: PrismaClient, fn: (tx: HotTransaction) => Promise<T>): Promise<T> {
  const client = await poolOf(prisma).connect();
  // A connection that fails between two statements must not become an uncaught 'error' event: the next statement
  // fails instead.
  client.on('error', ignore);
  const tx = new HotTransaction(client);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const out = await fn(tx);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    // A connection that cannot even roll back is dropped from the pool rather than reused.
    await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
    throw err;
  } finally {
    tx.open = false;
    client.removeListener('error', ignore);
    client.release(broken);
  }
}
