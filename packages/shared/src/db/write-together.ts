import { Prisma } from '../generated/prisma/client.js';

/**
 * Runs several INSERT, UPDATE or DELETE statements as one (data-modifying CTEs): one round trip instead of one each,
 * in the caller's transaction. Each statement gets `RETURNING 1` appended, so it must not have a RETURNING of its
 * own. They all see the snapshot taken before any of them ran, so none may depend on another's rows (a foreign key
 * to a row inserted beside it, say). Returns the number of rows each wrote, in order.
 */
export async function writeTogether(
  tx: Prisma.TransactionClient,
  statements: readonly Prisma.Sql[],
): Promise<number[]> {
  if (statements.length === 0) return [];
  const ctes = Prisma.join(
    statements.map((s, i) => Prisma.sql`${Prisma.raw(`w${i}`)} AS (${s} RETURNING 1)`),
    ', ',
  );
  const counts = Prisma.join(
    statements.map((_, i) => Prisma.raw(`(SELECT count(*) FROM w${i})::int`)),
    ', ',
  );
  const [row] = await tx.$queryRaw<Array<{ counts: number[] }>>`WITH ${ctes} SELECT ARRAY[${counts}] AS counts`;
  return row!.counts;
}
