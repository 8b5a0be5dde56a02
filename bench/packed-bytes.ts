/**
 * Bytes per result in steady state, as written and once packed (docs/adr/0017-packed-results.md): the bench's
 * scheduling scenario stores about a minute of results, a few per monitor, which packs into rows far emptier than a
 * closed day's. This fills whole days of results for a number of monitors at one interval, with values like the
 * bench's (an http target on loopback: timings, status 200, the address), in a database of its own next to
 * DATABASE_URL's (created, migrated, dropped), and measures both figures as the bench does.
 *
 *   npm run bench:packed -- --monitors 200 --interval 60 --days 1
 *
 * Writes bench/results/<start>-packed.json (the figures, commit and load average, as the bench's side runs).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPrisma } from '@statusvane/shared';
import { applyMigrations } from '../scripts/migrate.js';
import { ensureResultPartitions } from '../apps/worker/src/result-partitions.js';
import { bytesPerResult, packedBytesPerResult } from './lib/cost.js';
import { RESULTS_DIR, ROOT } from './lib/paths.js';
import { gitState, writeSideResults } from './lib/report.js';

const { values: args } = parseArgs({
  options: {
    monitors: { type: 'string', default: '200' },
    interval: { type: 'string', default: '60' },
    days: { type: 'string', default: '1' },
  },
});
const monitors = Number(args.monitors);
const interval = Number(args.interval);
const days = Number(args.days);
const startedAt = new Date();
const source = gitState();

const base = new URL(process.env.DATABASE_URL ?? '');
if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set');
const url = new URL(base);
url.pathname = `${base.pathname}_packed_bytes`;
const name = url.pathname.slice(1);
const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: base.toString() });
  await client.connect();
  await client.query(sql).finally(() => client.end());
};

await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
await admin(`CREATE DATABASE "${name}"`);
const prisma = createPrisma(url.toString(), { max: 2, statementTimeoutMs: 600_000 });
try {
  await applyMigrations(url.toString());
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
    interval,
  );
  const raw = await bytesPerResult(prisma);
  const packed = await packedBytesPerResult(prisma);
  process.stdout.write(
    `${monitors} monitors every ${interval} s for ${days} day(s): ${raw.resultRows} results; bytes per result ` +
      `${raw.bytesPerResult.toFixed(1)} as written, ${packed.bytesPerResultPacked.toFixed(1)} once packed ` +
      `(${packed.packedRows} packed rows); packed in ${(packed.packMs / 1000).toFixed(1)} s, ` +
      `${Math.round(raw.resultRows / (packed.packMs / 1000)).toLocaleString('en')} results/s\n`,
  );
  const { path } = writeSideResults(
    RESULTS_DIR,
    'packed',
    { startedAt, source },
    { monitors, intervalSeconds: interval, days, ...raw, ...packed },
  );
  process.stdout.write(`wrote ${path.slice(ROOT.length + 1)}\n`);
} finally {
  await prisma.$disconnect();
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
