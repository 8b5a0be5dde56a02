/**
 * Bytes per result once whole days are packed (docs/adr/0017-packed-results.md). Housekeeping packs a day only once it
 * is closed, so a packed row holds a whole day of one monitor's results in one region; the scheduling scenario stores
 * a few minutes, which packs into rows far emptier than any production row. This fills whole UTC days of results for
 * a number of monitors at one interval, with values like the scheduling scenario's (an http target on loopback:
 * timings, status 200, the address), in a database of its own next to DATABASE_URL's (created, migrated, dropped), and
 * measures both figures as the scheduling scenario does (bytesPerResult, packedBytesPerResult).
 */
import { ensureResultPartitions } from '../../apps/worker/src/result-partitions.js';
import { bytesPerResult, packedBytesPerResult } from './cost.js';
import { sideDatabase } from './side-database.js';

export interface PackedDays {
  monitors: number;
  intervalSeconds: number;
  days: number;
  /** Results filled (monitors x days x 86,400 / interval). */
  resultRows: number;
  /** As written: check_results heap + indexes + TOAST after VACUUM, divided by its rows. */
  bytesPerResult: number;
  /** Once every day is packed: check_results + check_results_packed, divided by the results. */
  bytesPerResultPacked: number;
  packedRows: number;
  packMs: number;
}

export async function measurePackedDays(input: {
  monitors: number;
  intervalSeconds: number;
  days: number;
  /** The database next to which the side database is made (DATABASE_URL when not given). */
  nextTo?: string;
}): Promise<PackedDays> {
  const { monitors, intervalSeconds, days } = input;
  const db = sideDatabase('packed_bytes', input.nextTo);
  const prisma = await db.create();
  try {
    // A component each: a monitor is its component's.
    await prisma.$executeRawUnsafe(`
      WITH ws AS (INSERT INTO workspaces (id, slug, name) VALUES (gen_random_uuid(), 'packed', 'Packed') RETURNING id),
           c AS (INSERT INTO components (id, "workspaceId", name)
                 SELECT gen_random_uuid(), id, 'c' || i FROM ws, generate_series(1, ${monitors}) AS i
                 RETURNING id, "workspaceId", name)
      INSERT INTO monitors (id, "workspaceId", "componentId", name, "updatedAt")
      SELECT gen_random_uuid(), "workspaceId", id, name, now() FROM c`);
    // Whole UTC days ending today, each in its partition as housekeeping makes them.
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const from = new Date(today - (days - 1) * 86_400_000);
    await ensureResultPartitions(prisma, from, days);
    await prisma.$executeRawUnsafe(
      `INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, "responseMs", "connectMs", "waitingMs",
         "statusCode", address)
       SELECT m.id, 'local', s, s + make_interval(secs => (20 + random() * 100) / 1000), 'up', (5 + random() * 40)::int,
         (random() * 20)::int, (1 + random() * 15)::int, 200, '127.0.0.1'
       FROM monitors m, generate_series($1::timestamptz, $1::timestamptz + make_interval(days => $2) - interval '1 ms',
         make_interval(secs => $3)) AS s`,
      from,
      days,
      intervalSeconds,
    );
    const raw = await bytesPerResult(prisma);
    const packed = await packedBytesPerResult(prisma);
    return { monitors, intervalSeconds, days, ...raw, ...packed };
  } finally {
    await prisma.$disconnect();
    await db.drop();
  }
}

/** One line: what was filled and both figures. */
export function packedDaysLine(p: PackedDays): string {
  return (
    `${p.monitors} monitors every ${p.intervalSeconds} s for ${p.days} day(s): ${p.resultRows} results; bytes per ` +
    `result ${p.bytesPerResult.toFixed(1)} as written, ${p.bytesPerResultPacked.toFixed(1)} once packed ` +
    `(${p.packedRows} packed rows); packed in ${(p.packMs / 1000).toFixed(1)} s`
  );
}
