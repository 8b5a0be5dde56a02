import { Prisma } from '../generated/prisma/client.js';
import { sqlRows, type SqlTransaction } from './hot-query.js';

/**
 * Runs several INSERT, UPDATE or DELETE statements as one (data-modifying CTEs): one round trip instead of one each,
 * in the caller's transaction. Each statement gets `RETURNING 1` appended, so it must not have a RETURNING of its
 * own. They all see the snapshot taken before any of them ran, so none may depend on another's rows (a foreign key
 * to a row inserted beside it, say). Returns the number of rows each wrote, in order. In a hotTransaction the
 * statement is a hot one (sqlRows): its text is fixed by which statements are joined, never by their values.
 */
export async function writeTogether(tx: SqlTransaction, statements: readonly Prisma.Sql[]): Promise<number[]> {
  if (statements.length === 0) return [];
  const ctes = Prisma.join(
    statements.map((s, i) => Prisma.sql`${Prisma.raw(`w${i}`)} AS (${s} RETURNING 1)`),
    ', ',
  );
  const counts = Prisma.join(
    statements.map((_, i) => Prisma.raw(`(SELECT count(*) FROM w${i})::int`)),
    ', ',
  );
  const [row] = await sqlRows<{ counts: number[] }>(tx, Prisma.sql`WITH ${ctes} SELECT ARRAY[${counts}] AS counts`);
  return row!.counts;
}
