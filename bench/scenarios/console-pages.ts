/**
 * The console's monitors pages at 10,000 monitors (issue 27: "the monitors page p99 < 100 ms and a monitor's page with
 * 90 days of charts p99 < 150 ms on the server; a page with its assets < 150 KB gzipped"). Seeds a workspace of its
 * own: `monitors` http monitors in every status, each with the hourly rollups of the last 25 hours and the daily
 * rollups of the last `days` days in one region (what a day of one-minute checks leaves: counts, sums and a latency
 * histogram), one of them checked from three regions with the latest results and a few incidents; an owner who signs
 * in through the login form. Then, signed in, with autocannon (a warm-up, then the measured run): the monitors page
 * (first page of 100, the default order), the same sorted by 24 h uptime, and a monitor's page over 24 hours and over
 * 90 days. `connections` 1 is the server's time for one page (the goal); more shows how it holds under a few at once.
 * Each page's weight: its HTML and every asset it links, in bytes as sent gzipped, summed.
 */
import type { PrismaClient } from '@statusvane/shared';
import { machineTicks as machineTicksNow, sampleScoped, scopedCpuPerUnit, type ScopedSources } from '../lib/cost.js';
import { createMonitorsBulk, seedWorkspace } from '../lib/seed.js';
import { measure } from './api.js';
import { addMember, createUser } from '../../apps/api/src/admin/admin-commands.js';
import { hashPassword } from '../../apps/api/src/services/status-pages/password.js';
import { ensureResultPartitions } from '../../apps/worker/src/result-partitions.js';

/** The goals of issue 27, in ms (p99 on the server) and bytes (a page and its assets, gzipped). */
export const CONSOLE_GOALS = { listP99Ms: 100, monitorP99Ms: 150, pageBytes: 150 * 1024 } as const;
/** Issue 33: the monitors page (4 at once) at 15% or more of bare Express's CPU efficiency, in percent. */
export const CONSOLE_EFFICIENCY_GOAL_PERCENT = 15;

/** The measured monitor's regions (its chart: p50 and p95 of each); every other monitor is checked from the first. */
export const CONSOLE_REGIONS = ['eu-west', 'us-east', 'ap-south'] as const;

export interface ConsolePageFigures {
  name: string;
  path: string;
  connections: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  bad: number;
  /** The API process's CPU time per page (user and system, from /proc): what a page costs whatever else runs. */
  apiCpuMsPerPage: number;
  /**
   * CPU µs per page: the API process, the PostgreSQL backends of the bench's database and the Redis server (issue 33);
   * absent in results written before it.
   */
  cpuUsPerPage?: { process: number; postgres: number; redis: number; total: number };
  /** Bare Express's CPU per request (same connections) over the page's: issue 33's efficiency (absent before it). */
  efficiency?: number;
  /** How busy the machine's cores were meanwhile (all of its processes), in percent. */
  machineBusyPercent: number | null;
}

export interface ConsolePageWeight {
  name: string;
  /** The HTML gzipped, each asset gzipped, and their sum. */
  htmlBytes: number;
  assets: Array<{ path: string; bytes: number }>;
  totalBytes: number;
}

export interface ConsolePagesResult {
  monitors: number;
  days: number;
  seedSeconds: number;
  durationSeconds: number;
  pages: ConsolePageFigures[];
  weights: ConsolePageWeight[];
  goals: Array<{ goal: string; value: number; limit: number; target: string; met: boolean }>;
}

const PASSWORD = 'bench console password';

/** Every status the list shows, spread as a real workspace has them (most up). */
async function spreadStatuses(prisma: PrismaClient, workspaceId: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE monitors SET
      status = (CASE WHEN n % 50 = 1 THEN 'down' WHEN n % 50 = 2 THEN 'degraded' WHEN n % 100 = 3 THEN 'pending'
                ELSE 'up' END)::"MonitorStatus",
      enabled = n % 100 <> 4,
      "lastCheckedAt" = now() - make_interval(secs => n % 60)
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM monitors WHERE "workspaceId" = ${workspaceId}::uuid) x
    WHERE monitors.id = x.id`;
}

/** SQL for a latency histogram of `n` checks around `ms`: three buckets (a sixth, two thirds, a sixth). */
const hist = (ms: string, n: string) =>
  `('[' || (latency_bucket(${ms}) - 1) || ':' || (latency_bucket(${ms}) + 1) || ']={' || (${n}) / 6 || ',' || (${n}) - 2 * ((${n}) / 6) || ',' || (${n}) / 6 || '}')::int[]`;

/**
 * The rollups a day of one-minute checks leaves, per monitor (one region; the measured monitor three): a response
 * time of 80 to 335 ms that varies by monitor and hour, a histogram of three buckets around it, and now and then a
 * few failed checks. INSERT ... SELECT, a thousand monitors a statement (each well inside the client's statement
 * timeout on a busy machine).
 */
async function seedRollups(
  prisma: PrismaClient,
  input: { workspaceId: string; measuredId: string; monitorIds: string[]; days: number },
): Promise<void> {
  for (let i = 0; i < input.monitorIds.length; i += 1000)
    await seedRollupRows(prisma, input, input.monitorIds.slice(i, i + 1000));
}

async function seedRollupRows(
  prisma: PrismaClient,
  input: { workspaceId: string; measuredId: string; days: number },
  ids: string[],
): Promise<void> {
  // $1 the measured monitor, $2 its regions, $3 every other monitor's, $4 the workspace, $5 the monitors of the batch.
  const common = [input.measuredId, [...CONSOLE_REGIONS], CONSOLE_REGIONS.slice(0, 1), input.workspaceId, ids];
  await prisma.$executeRawUnsafe(
    `INSERT INTO check_rollups_hourly ("monitorId", region, hour, total, "downCount", "responseSum", "responseCount", "latencyHist")
     SELECT m.id, r.region, h.hour, 60, d.down, (60 - d.down)::bigint * d.ms, 60 - d.down, ${hist('d.ms', '60 - d.down')}
     FROM monitors m
     CROSS JOIN LATERAL unnest(CASE WHEN m.id = $1::uuid THEN $2::text[] ELSE $3::text[] END) r(region)
     CROSS JOIN generate_series(date_trunc('hour', now()) - interval '25 hours', date_trunc('hour', now()), interval '1 hour') h(hour)
     CROSS JOIN LATERAL (SELECT 80 + (hashtext(m.id::text || r.region || h.hour::text) & 255) AS ms,
       CASE WHEN hashtext(m.id::text || h.hour::text) % 61 = 0 THEN 3 ELSE 0 END AS down) d
     WHERE m."workspaceId" = $4::uuid AND m.id = ANY($5::uuid[])`,
    ...common,
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO check_rollups_daily ("monitorId", region, day, total, "downCount", "degradedCount", "responseSum", "responseCount", "latencyHist")
     SELECT m.id, r.region, g.day::date, 1440, d.down, d.down * 2, (1440 - d.down)::bigint * d.ms, 1440 - d.down, ${hist('d.ms', '1440 - d.down')}
     FROM monitors m
     CROSS JOIN LATERAL unnest(CASE WHEN m.id = $1::uuid THEN $2::text[] ELSE $3::text[] END) r(region)
     CROSS JOIN generate_series(current_date - ($6::int - 1), current_date, interval '1 day') g(day)
     CROSS JOIN LATERAL (SELECT 80 + (hashtext(m.id::text || r.region || g.day::text) & 255) AS ms,
       CASE WHEN hashtext(m.id::text || g.day::text) % 13 = 0 THEN 4 ELSE 0 END AS down) d
     WHERE m."workspaceId" = $4::uuid AND m.id = ANY($5::uuid[])`,
    ...common,
    input.days,
  );
}

/** The measured monitor's latest results (an hour in each region) and a few incidents, as its page shows them. */
async function seedMeasuredMonitor(prisma: PrismaClient, workspaceId: string, monitorId: string): Promise<void> {
  await prisma.monitor.update({
    where: { id: monitorId },
    data: { regions: [...CONSOLE_REGIONS], name: 'Checkout API', status: 'up' },
  });
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  await ensureResultPartitions(prisma, new Date(now));
  await prisma.checkResult.createMany({
    data: CONSOLE_REGIONS.flatMap((region, r) =>
      Array.from({ length: 60 }, (_, i) => {
        const at = new Date(now - i * 60_000);
        const ms = 90 + r * 60 + ((i * 37) % 80);
        return {
          monitorId,
          region,
          slot: at,
          checkedAt: at,
          outcome: 'up' as const,
          responseMs: ms,
          dnsMs: 3,
          connectMs: 10 + r * 20,
          tlsMs: 20 + r * 20,
          waitingMs: ms - 40 - r * 40,
          statusCode: 200,
          address: '127.0.0.1',
        };
      }),
    ),
  });
  const DAY = 86_400_000;
  for (let i = 0; i < 6; i++) {
    const startedAt = new Date(Date.now() - (i * 12 + 3) * DAY);
    await prisma.incident.create({
      data: {
        workspaceId,
        monitorId,
        title: `Checkout API is down (${i + 1})`,
        status: 'resolved',
        source: 'monitor',
        startedAt,
        resolvedAt: new Date(startedAt.getTime() + 1_800_000),
      },
    });
  }
}

/** An owner with a console password; signs in through the login form and returns the session's Cookie header. */
async function signIn(prisma: PrismaClient, apiUrl: string, workspaceId: string): Promise<string> {
  const user = await createUser(prisma, { email: 'owner@bench.example' });
  await addMember(prisma, { workspace: workspaceId, email: user.email, role: 'owner' });
  await prisma.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const form = await fetch(`${apiUrl}/app/login`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!form.ok || !csrf) throw new Error(`the login page answered ${form.status} without a form token`);
  const res = await fetch(`${apiUrl}/app/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: cookiesOf(form).join('; '),
      origin: apiUrl,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ _csrf: csrf, email: user.email, password: PASSWORD }).toString(),
  });
  await res.arrayBuffer();
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}, not 303`);
  return [...cookiesOf(form), ...cookiesOf(res)].join('; ');
}

/**
 * The page's HTML and every asset it links (stylesheet, script, icon), in bytes as sent to a browser that accepts gzip
 * (fetch decodes the body; Content-Length is the size on the wire).
 */
async function weigh(apiUrl: string, name: string, path: string, cookie: string): Promise<ConsolePageWeight> {
  const sent = async (url: string, headers: Record<string, string>) => {
    const res = await fetch(url, { headers: { ...headers, 'accept-encoding': 'gzip' } });
    const text = await res.text();
    if (!res.ok || res.headers.get('content-encoding') !== 'gzip')
      throw new Error(`GET ${url} answered ${res.status}, ${res.headers.get('content-encoding') ?? 'not gzipped'}`);
    return { text, bytes: Number(res.headers.get('content-length')) };
  };
  const page = await sent(`${apiUrl}${path}`, { cookie });
  const links = [...page.text.matchAll(/(?:href|src)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  const assets = [];
  for (const link of new Set(links)) assets.push({ path: link, bytes: (await sent(`${apiUrl}${link}`, {})).bytes });
  return {
    name,
    htmlBytes: page.bytes,
    assets,
    totalBytes: page.bytes + assets.reduce((s, a) => s + a.bytes, 0),
  };
}

/** What each page must show, or the bench would time an error page or an empty one. */
async function checkPages(apiUrl: string, cookie: string, paths: { list: string; monitor: string }): Promise<void> {
  const list = await (await fetch(`${apiUrl}${paths.list}`, { headers: { cookie } })).text();
  const rows = (list.match(/<tr[^>]*data-monitor="/g) ?? []).length;
  if (rows !== 100) throw new Error(`the monitors page shows ${rows} monitors, not 100`);
  const monitor = await (await fetch(`${apiUrl}${paths.monitor}?range=90d`, { headers: { cookie } })).text();
  for (const region of CONSOLE_REGIONS)
    if (!monitor.includes(`${region} p95`)) throw new Error(`the monitor's 90-day chart has no ${region} p95 series`);
}

export async function seedConsolePages(
  prisma: PrismaClient,
  input: { monitors: number; days: number; targetUrl: string },
): Promise<{ workspaceId: string; slug: string; monitorId: string; seedSeconds: number }> {
  const t = Date.now();
  const ws = await seedWorkspace(prisma, 'bench-console');
  const monitors = await createMonitorsBulk(prisma, {
    workspaceId: ws.id,
    count: input.monitors,
    type: 'http',
    target: input.targetUrl,
    intervalSeconds: 60,
    enabled: true,
    name: 'Service',
  });
  const measured = monitors[Math.floor(monitors.length / 2)]!.id;
  await spreadStatuses(prisma, ws.id);
  await seedRollups(prisma, {
    workspaceId: ws.id,
    measuredId: measured,
    monitorIds: monitors.map((m) => m.id),
    days: input.days,
  });
  await seedMeasuredMonitor(prisma, ws.id, measured);
  await prisma.$executeRawUnsafe('ANALYZE');
  return { workspaceId: ws.id, slug: 'bench-console', monitorId: measured, seedSeconds: (Date.now() - t) / 1000 };
}

export async function runConsolePages(
  input: {
    prisma: PrismaClient;
    apiUrl: string;
    apiPid: number;
    workspaceId: string;
    slug: string;
    monitorId: string;
    monitors: number;
    days: number;
    seedSeconds: number;
    connections: number[];
    durationSeconds: number;
    warmupSeconds: number;
    /** Bare Express (bench/servers/express-baseline.ts): the efficiency's baseline, measured at each connections. */
    baseline: { url: string; pid: number };
    /** Whose CPU a page costs besides the API: the database's backends and Redis (bench/lib/cost.ts). */
    backends: ScopedSources['backends'];
    redisPid: number | null;
  },
  log: (msg: string) => void,
): Promise<ConsolePagesResult> {
  const t = Date.now();
  const cookie = await signIn(input.prisma, input.apiUrl, input.workspaceId);
  const list = `/app/${input.slug}/monitors`;
  const monitor = `/app/${input.slug}/monitors/${input.monitorId}`;
  await checkPages(input.apiUrl, cookie, { list, monitor });
  const cases = [
    { name: 'monitors page', path: list },
    { name: 'monitors page sorted by 24 h uptime', path: `${list}?sort=uptime24h` },
    { name: "a monitor's page (24 hours)", path: monitor },
    { name: "a monitor's page (90 days)", path: `${monitor}?range=90d` },
  ];
  const pages: ConsolePageFigures[] = [];
  const cpuOf: ScopedSources = { pid: input.apiPid, backends: input.backends, redisPid: input.redisPid };
  for (const connections of input.connections) {
    const baselineOpts = { url: input.baseline.url, connections, pipelining: 1, timeout: 10 };
    const base = await measure(baselineOpts, input.warmupSeconds, input.durationSeconds, {
      pid: input.baseline.pid,
      backends: null,
      redisPid: null,
    });
    const baselineUs = base.cpuUsPerRequest!.total;
    log(`bare Express, ${connections} at once: ${Math.round(base.rps)} req/s, CPU ${baselineUs} µs a request`);
    for (const c of cases) {
      const opts = {
        url: `${input.apiUrl}${c.path}`,
        connections,
        pipelining: 1,
        timeout: 10,
        headers: { cookie, accept: 'text/html', 'accept-encoding': 'gzip' },
      };
      // The warm-up on its own, so that the CPU time read around the measured run is that run's.
      await measure(opts, 0, input.warmupSeconds);
      const before = await sampleScoped(cpuOf);
      const machineBefore = machineTicksNow();
      const m = await measure(opts, 0, input.durationSeconds);
      const machineAfter = machineTicksNow();
      const after = await sampleScoped(cpuOf);
      const cpuUsPerPage = scopedCpuPerUnit(before, after, Math.max(1, m.requests));
      const apiCpuMsPerPage = Math.round(cpuUsPerPage.process / 100) / 10;
      const efficiency = Math.round((baselineUs / cpuUsPerPage.total) * 1000) / 1000;
      const machineBusyPercent =
        machineBefore && machineAfter
          ? Math.round(
              ((machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total)) * 100,
            )
          : null;
      pages.push({ ...c, connections, ...m, apiCpuMsPerPage, cpuUsPerPage, efficiency, machineBusyPercent });
      log(
        `${c.name}, ${connections} at once: ${Math.round(m.rps)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, ` +
          `CPU µs a page: API ${cpuUsPerPage.process} + PostgreSQL ${cpuUsPerPage.postgres} + Redis ${cpuUsPerPage.redis}, ` +
          `efficiency ${(efficiency * 100).toFixed(1)}%, machine ${machineBusyPercent ?? '?'}% busy`,
      );
    }
  }
  const weights = [
    await weigh(input.apiUrl, 'monitors page', list, cookie),
    await weigh(input.apiUrl, "a monitor's page (90 days)", `${monitor}?range=90d`, cookie),
  ];
  for (const w of weights) log(`${w.name}: ${w.totalBytes} bytes gzipped with its assets (HTML ${w.htmlBytes})`);
  const serverTime = (name: string) => pages.find((p) => p.name === name && p.connections === 1)!.p99Ms;
  const goals = [
    { goal: 'monitors page p99 (ms)', value: serverTime('monitors page'), limit: CONSOLE_GOALS.listP99Ms },
    {
      goal: "a monitor's page with 90 days of charts p99 (ms)",
      value: serverTime("a monitor's page (90 days)"),
      limit: CONSOLE_GOALS.monitorP99Ms,
    },
    ...weights.map((w) => ({
      goal: `${w.name} with its assets, gzipped (bytes)`,
      value: w.totalBytes,
      limit: CONSOLE_GOALS.pageBytes,
    })),
  ].map((g) => ({ ...g, target: `under ${g.limit}`, met: g.value < g.limit }));
  // Issue 33: at least, not under.
  const listAtFour = pages.find((p) => p.name === 'monitors page' && p.connections === Math.max(...input.connections));
  const efficiencyPercent = Math.round((listAtFour?.efficiency ?? 0) * 1000) / 10;
  goals.push({
    goal: `monitors page CPU efficiency vs bare Express, ${listAtFour?.connections} at once (%)`,
    value: efficiencyPercent,
    limit: CONSOLE_EFFICIENCY_GOAL_PERCENT,
    target: `at least ${CONSOLE_EFFICIENCY_GOAL_PERCENT}`,
    met: efficiencyPercent >= CONSOLE_EFFICIENCY_GOAL_PERCENT,
  });
  return {
    monitors: input.monitors,
    days: input.days,
    seedSeconds: Math.round(input.seedSeconds * 10) / 10,
    durationSeconds: Math.round((Date.now() - t) / 100) / 10,
    pages,
    weights,
    goals,
  };
}
