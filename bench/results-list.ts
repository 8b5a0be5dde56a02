/**
 * GET /monitors/{id}/results over a long history: one monitor with `days` of one-minute results in two regions
 * (`eu`, `us`; a few down, degraded, missed and late ones), first all raw, then with the closed days packed by the
 * real packer (docs/adr/0017-packed-results.md). Each case is the median of `calls` calls of the service the route
 * runs (listCheckResults: the monitor's lookup, the count and the page), after 3 warm-ups, one at a time. The answers
 * raw and packed must be the same (the run fails otherwise). In a database of its own next to DATABASE_URL's (created,
 * migrated, dropped).
 *
 *   npm run bench:results-list -- --days 35 --calls 20 [--keep]
 *
 * Writes bench/results/<start>-results-list.json (the figures, commit and load average, as the bench's side runs).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createLogger } from '@statusvane/shared';
import { authenticate } from '../apps/api/src/services/auth/authenticate.js';
import { checkResultQuerySchema, listCheckResults } from '../apps/api/src/services/monitors/list-check-results.js';
import { ensureResultPartitions, packClosedResults, PACK_AFTER_MS } from '../apps/worker/src/result-partitions.js';
import { RESULTS_DIR, ROOT } from './lib/paths.js';
import { sideDatabase } from './lib/side-database.js';
import { gitState, writeSideResults } from './lib/report.js';
import { createMonitorsBulk, seedWorkspace } from './lib/seed.js';

const { values: args } = parseArgs({
  options: {
    days: { type: 'string', default: '35' },
    calls: { type: 'string', default: '20' },
    /** Keep the database afterwards (to EXPLAIN the queries); dropped at the next run. */
    keep: { type: 'boolean', default: false },
  },
});
const days = Number(args.days);
const calls = Number(args.calls);
const startedAt = new Date();
const source = gitState();
const DAY = 86_400_000;

const db = sideDatabase('results_list');

/** The cases timed, as the query string a user sends. */
const since = new Date(Math.floor(startedAt.getTime() / 60_000) * 60_000 - 3_600_000);
const CASES: Record<string, Record<string, string>> = {
  'page 1': {},
  'page 100 of 100': { page: '100', perPage: '100' },
  'region=eu, page 2': { region: 'eu', page: '2' },
  'status=down': { status: 'down' },
  'status=down,missed, page 3': { status: 'down,missed', page: '3' },
  'since=1 h ago': { since: since.toISOString() },
  'since=7 d ago, page 2': { since: new Date(since.getTime() + 3_600_000 - 7 * DAY).toISOString(), page: '2' },
};

interface CaseResult {
  medianMs: number;
  minMs: number;
  maxMs: number;
  total: number;
  rows: number;
}

const prisma = await db.create();
try {
  const ws = await seedWorkspace(prisma, 'results-list');
  const [monitor] = await createMonitorsBulk(prisma, {
    workspaceId: ws.id,
    count: 1,
    type: 'http',
    target: 'http://127.0.0.1:9/',
    intervalSeconds: 60,
    enabled: false,
    name: 'Results list',
  });
  const monitorId = monitor!.id;
  const logger = createLogger({ level: 'warn', json: true, service: 'bench' });
  const auth = await authenticate(
    { prisma, logger },
    { authorization: `Bearer ${ws.token}`, workspaceHeader: undefined },
  );

  // Whole UTC days ending now, each day in its partition as housekeeping makes them.
  const now = new Date(Math.floor(startedAt.getTime() / 60_000) * 60_000);
  const from = new Date(Math.floor(now.getTime() / DAY) * DAY - (days - 1) * DAY);
  await ensureResultPartitions(prisma, from, days + 3);
  const t0 = performance.now();
  // Mostly up; down every 97th minute in us, degraded every 53rd, a missed slot every 1,009th (recorded 10 minutes
  // late), and every 499th checked 30 minutes late.
  const [{ n: results } = { n: 0 }] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(
    `WITH ins AS (
       INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, "responseMs", "connectMs",
         "waitingMs", "statusCode", reason, address)
       SELECT $1::uuid, r, s,
         s + CASE WHEN i % 1009 = 0 THEN interval '10 minutes' WHEN i % 499 = 0 THEN interval '30 minutes'
                  ELSE make_interval(secs => (20 + (i * 37) % 100) / 1000.0) END,
         o::"CheckOutcome",
         CASE WHEN o IN ('up', 'degraded') THEN 5 + (i * 13) % 400 END,
         CASE WHEN o IN ('up', 'degraded') THEN (i * 7) % 20 END,
         CASE WHEN o IN ('up', 'degraded') THEN 1 + (i * 3) % 15 END,
         CASE WHEN o = 'missed' THEN NULL WHEN o = 'down' THEN 503 ELSE 200 END,
         CASE o WHEN 'down' THEN 'status_code' WHEN 'degraded' THEN 'slow' WHEN 'missed' THEN 'checks_behind: not run' END,
         CASE WHEN o <> 'missed' THEN '127.0.0.1'::inet END
       FROM generate_series($2::timestamptz, $3::timestamptz, interval '1 minute') WITH ORDINALITY AS g(s, i),
         unnest(ARRAY['eu', 'us']) AS r,
         LATERAL (SELECT CASE WHEN i % 1009 = 0 THEN 'missed' WHEN i % 97 = 0 AND r = 'us' THEN 'down'
                              WHEN i % 53 = 0 THEN 'degraded' ELSE 'up' END AS o) AS x
       RETURNING 1)
     SELECT count(*)::int AS n FROM ins`,
    monitorId,
    from,
    new Date(now.getTime() - 60_000),
  );
  await prisma.$executeRawUnsafe('ANALYZE check_results');
  const loadMs = Math.round(performance.now() - t0);
  process.stdout.write(`${results} results over ${days} days in 2 regions, loaded in ${loadMs} ms\n`);

  const run = async (query: Record<string, string>) =>
    listCheckResults(
      { prisma },
      { ctx: { ...auth, now }, input: { id: monitorId, query: checkResultQuerySchema.parse(query) } },
    );
  const measure = async (): Promise<{ figures: Record<string, CaseResult>; answers: unknown[] }> => {
    const figures: Record<string, CaseResult> = {};
    const answers: unknown[] = [];
    for (const [label, query] of Object.entries(CASES)) {
      for (let i = 0; i < 3; i++) await run(query);
      const times: number[] = [];
      let answer: Awaited<ReturnType<typeof run>> | undefined;
      for (let i = 0; i < calls; i++) {
        const t = performance.now();
        answer = await run(query);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const r = (v: number) => Math.round(v * 100) / 100;
      figures[label] = {
        medianMs: r(times[Math.floor((times.length - 1) / 2)]!),
        minMs: r(times[0]!),
        maxMs: r(times.at(-1)!),
        total: answer!.pagination.total,
        rows: answer!.data.length,
      };
      answers.push(answer);
    }
    return { figures, answers };
  };

  const raw = await measure();
  const packedDays = Math.max(0, Math.floor((now.getTime() - PACK_AFTER_MS) / DAY) * DAY - from.getTime()) / DAY;
  const t1 = performance.now();
  const report = await packClosedResults(prisma, new Date(now.getTime() - PACK_AFTER_MS));
  await prisma.$executeRawUnsafe('ANALYZE check_results');
  await prisma.$executeRawUnsafe('ANALYZE check_results_packed');
  const packMs = Math.round(performance.now() - t1);
  process.stdout.write(`packed ${report.results} results of ${report.partitions.length} days in ${packMs} ms\n`);
  const packed = await measure();
  if (JSON.stringify(packed.answers) !== JSON.stringify(raw.answers))
    throw new Error('the answers differ once the closed days are packed');

  const width = Math.max(...Object.keys(CASES).map((k) => k.length));
  const loadAverage = os.loadavg().map((l) => l.toFixed(2));
  process.stdout.write(
    `\nmedian of ${calls} calls (ms), load average ${loadAverage.join(' ')}\n` +
      `${'case'.padEnd(width)}  ${'all raw'.padStart(8)}  ${`${packedDays} d packed`.padStart(12)}  total\n`,
  );
  for (const label of Object.keys(CASES)) {
    const a = raw.figures[label]!;
    const b = packed.figures[label]!;
    process.stdout.write(
      `${label.padEnd(width)}  ${a.medianMs.toFixed(2).padStart(8)}  ${b.medianMs.toFixed(2).padStart(12)}  ${b.total}\n`,
    );
  }
  const { path } = writeSideResults(
    RESULTS_DIR,
    'results-list',
    { startedAt, source },
    {
      days,
      regions: 2,
      results,
      packedDays: report.partitions.length,
      calls,
      cases: CASES,
      raw: raw.figures,
      packed: packed.figures,
    },
  );
  process.stdout.write(`wrote ${path.slice(ROOT.length + 1)}\n`);
} finally {
  await prisma.$disconnect();
  if (!args.keep) await db.drop();
}
