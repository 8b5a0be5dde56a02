/**
 * Uptime report (issue 29, beyond-the-seed §8: "a report of one month for 1,000 monitors answers in p99 < 300 ms"):
 * `monitors` monitors in a workspace of their own with a month of what accounting reads (ADR 0018: incidents with
 * their down start, degraded spans, some paused and missed spans, maintenance windows on some components and on the
 * whole workspace), then `GET /api/v1/reports/uptime` of last month over HTTP against the running API, one request at
 * a time after a warm-up: the CSV of every monitor by month (the goal), a JSON page of 250 by month and by day.
 *
 * Loading: straight SQL (what months of checks would have left in incidents and monitor_spans), then ANALYZE, as
 * autovacuum would have done.
 */
import { performance } from 'node:perf_hooks';
import type { PrismaClient } from '@statusvane/shared';
import { cpuUse, sampleCpu } from '../lib/cost.js';
import { createMonitorsBulk, seedWorkspace } from '../lib/seed.js';
import { latencySummary, timeSequential } from './response-times.js';

export interface UptimeReportCase {
  name: string;
  /** The query string of GET /api/v1/reports/uptime. */
  query: string;
  accept: 'text/csv' | 'application/json';
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The answer's size (uncompressed). */
  bytes: number;
  /**
   * The API process's CPU time per request (/proc), and how busy the whole machine was meanwhile (every process on
   * it, in % of all cores): on a machine others load too, the latencies above grow with the second, not the first.
   */
  apiCpuMsPerRequest: number | null;
  machineBusyPercent: number | null;
}

export interface UptimeReportResult {
  monitors: number;
  /** The month reported, `YYYY-MM` (the last whole UTC month). */
  month: string;
  /** Incidents and spans loaded over the month. */
  incidents: number;
  spans: number;
  loadMs: number;
  /** Measured requests per case (after the warm-up), one at a time. */
  requests: number;
  cases: UptimeReportCase[];
}

/** The goal's case: the CSV of every monitor for one month. */
export const UPTIME_REPORT_GOAL_CASE = 'CSV of every monitor, month';

/** Runs the scenario in a workspace of its own, seeded here (the caller deletes it by `workspaceId`). */
export async function runUptimeReport(
  input: { prisma: PrismaClient; apiUrl: string; apiPid: number | undefined; monitors: number; requests: number },
  log: (msg: string) => void,
): Promise<{ workspaceId: string; result: UptimeReportResult }> {
  const { prisma, monitors } = input;
  const now = new Date();
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const month = monthStart.toISOString().slice(0, 7);
  const t0 = performance.now();
  const ws = await seedWorkspace(prisma, 'bench-uptime-report');
  const ids = (
    await createMonitorsBulk(prisma, {
      workspaceId: ws.id,
      count: monitors,
      type: 'http',
      target: 'http://127.0.0.1:9/',
      intervalSeconds: 60,
      enabled: false,
      name: 'Report',
    })
  ).map((m) => m.id);
  await prisma.$executeRaw`UPDATE monitors SET "createdAt" = ${new Date(monthStart.getTime() - 30 * 86_400_000)}
    WHERE "workspaceId" = ${ws.id}::uuid`;
  // Per monitor: 3 incidents of 5 to 40 minutes, 10 degraded spans of 1 to 15 minutes; every 10th paused 6 hours; every
  // 20th missing 10 one-minute slots in region `local`.
  const incidents = await prisma.$executeRaw`
    INSERT INTO incidents ("id", "workspaceId", "monitorId", title, status, source, "startedAt", "downStartedAt", "resolvedAt")
    SELECT gen_random_uuid(), ${ws.id}::uuid, m, 'down', 'resolved', 'monitor',
      s + interval '1 minute', s, s + make_interval(mins => (5 + (k * 7 + i) % 35)::int)
    FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS x(m, i), generate_series(1, 3) AS k,
      LATERAL (SELECT ${monthStart}::timestamptz + make_interval(hours => ((i * 31 + k * 211) % 700)::int) AS s) t`;
  let spans = await prisma.$executeRaw`
    INSERT INTO monitor_spans ("monitorId", kind, "startedAt", "endedAt")
    SELECT m, 'degraded', s, s + make_interval(mins => (1 + (k + i) % 15)::int)
    FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS x(m, i), generate_series(1, 10) AS k,
      LATERAL (SELECT ${monthStart}::timestamptz + make_interval(hours => ((i * 17 + k * 67) % 710)::int) AS s) t`;
  spans += await prisma.$executeRaw`
    INSERT INTO monitor_spans ("monitorId", kind, "startedAt", "endedAt")
    SELECT m, 'paused', s, s + interval '6 hours'
    FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS x(m, i),
      LATERAL (SELECT ${monthStart}::timestamptz + make_interval(hours => (i % 600)::int) AS s) t
    WHERE i % 10 = 0`;
  spans += await prisma.$executeRaw`
    INSERT INTO monitor_spans ("monitorId", kind, region, "startedAt", "endedAt")
    SELECT m, 'missed', 'local', s, s + interval '1 minute'
    FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS x(m, i), generate_series(1, 10) AS k,
      LATERAL (SELECT ${monthStart}::timestamptz + make_interval(mins => ((i * 3 + k) % 40000)::int) AS s) t
    WHERE i % 20 = 0`;
  // Four windows: two on the whole workspace, two on a tenth of the components each.
  for (let w = 0; w < 4; w++) {
    const startsAt = new Date(monthStart.getTime() + (3 + w * 7) * 86_400_000);
    const window = await prisma.maintenanceWindow.create({
      data: { workspaceId: ws.id, title: `window ${w}`, startsAt, endsAt: new Date(startsAt.getTime() + 7_200_000) },
    });
    if (w % 2)
      await prisma.$executeRaw`
        INSERT INTO maintenance_components ("maintenanceId", "componentId")
        SELECT ${window.id}::uuid, "componentId" FROM monitors
        WHERE "workspaceId" = ${ws.id}::uuid AND hashtext(id::text) % 10 = 0`;
  }
  for (const table of ['incidents', 'monitor_spans', 'monitors', 'maintenance_windows', 'maintenance_components'])
    await prisma.$executeRawUnsafe(`ANALYZE ${table}`);
  const loadMs = Math.round(performance.now() - t0);
  log(`uptime report: ${monitors} monitors, ${incidents} incidents and ${spans} spans over ${month}, ${loadMs} ms`);

  const range = `from=${month}-01&to=${monthEnd.toISOString().slice(0, 10)}`;
  const cases: Array<Pick<UptimeReportCase, 'name' | 'query' | 'accept'> & { lines: number }> = [
    { name: UPTIME_REPORT_GOAL_CASE, query: `${range}&granularity=month`, accept: 'text/csv', lines: monitors + 1 },
    {
      name: 'JSON page of 250, month',
      query: `${range}&granularity=month&perPage=250`,
      accept: 'application/json',
      lines: Math.min(250, monitors),
    },
    {
      name: 'JSON page of 250, days',
      query: `${range}&granularity=day&perPage=250`,
      accept: 'application/json',
      lines: Math.min(250, monitors),
    },
  ];
  const headers = { authorization: `Bearer ${ws.token}` };
  const out: UptimeReportCase[] = [];
  for (const c of cases) {
    const url = `${input.apiUrl}/api/v1/reports/uptime?${c.query}`;
    const get = async () => {
      const res = await fetch(url, { headers: { ...headers, accept: c.accept }, signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      if (res.status !== 200)
        throw new Error(`GET ${url.slice(input.apiUrl.length)}: ${res.status} ${text.slice(0, 300)}`);
      return text;
    };
    // The harness checks the answer once: a line per monitor (CSV, with its header) or a row per monitor of the page.
    const first = await get();
    const lines = c.accept === 'text/csv' ? first.trimEnd().split('\r\n').length : JSON.parse(first).data.length;
    if (lines !== c.lines) throw new Error(`uptime report, ${c.name}: ${lines} lines or rows, expected ${c.lines}`);
    for (let i = 0; i < Math.min(5, input.requests); i++) await get(); // warm-up: connection, JIT, query plans
    const sources = { workerPids: input.apiPid ? [input.apiPid] : [], postmasterPid: null, redisPid: null };
    const before = sampleCpu(sources);
    const times = await timeSequential(input.requests, get);
    const after = sampleCpu(sources);
    const s = latencySummary(times);
    const apiCpuMs = input.apiPid ? after.workerMs - before.workerMs : null;
    out.push({
      name: c.name,
      query: c.query,
      accept: c.accept,
      p50Ms: s.p50,
      p95Ms: s.p95,
      p99Ms: s.p99,
      maxMs: s.max,
      bytes: Buffer.byteLength(first),
      apiCpuMsPerRequest: apiCpuMs === null ? null : Math.round((apiCpuMs / input.requests) * 10) / 10,
      machineBusyPercent: cpuUse(before, after).machine?.busyPercent ?? null,
    });
    log(
      `GET /reports/uptime, ${c.name} (${input.requests} requests): p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms; ` +
        `API CPU ${out.at(-1)!.apiCpuMsPerRequest} ms a request, machine ${out.at(-1)!.machineBusyPercent}% busy`,
    );
  }
  return {
    workspaceId: ws.id,
    result: { monitors, month, incidents, spans, loadMs, requests: input.requests, cases: out },
  };
}
