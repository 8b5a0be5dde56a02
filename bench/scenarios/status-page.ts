/**
 * The public status page under load (issue 17: "50 components and 90 days of history, p99 under 50 ms, HTML and
 * JSON, with the daily rollups doing the work"). Seeds a workspace of its own: `components` http monitors (most up,
 * one degraded, one down), each with 90 days of daily rollups in one region (a day's worth of one-minute checks,
 * with failures scattered over the days), an open incident with its update timeline, a few incidents resolved
 * within the last 14 days, and a maintenance window in progress; then one public page showing every component.
 * `GET /status/<slug>` with autocannon (a warm-up, then the measured run), as HTML and as JSON, gzip accepted as
 * browsers and aggregators send it.
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import type { PrismaClient } from '@statusvane/shared';
import { createMonitorsBulk, seedWorkspace } from '../lib/seed.js';
import { measure } from './api.js';

export interface StatusPageVariant {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  bad: number;
  /** Bytes of one answer's body as sent (gzipped). */
  bytes: number;
}

export interface StatusPageResult {
  components: number;
  days: number;
  connections: number;
  durationSeconds: number;
  html: StatusPageVariant;
  json: StatusPageVariant;
}

const DAY_MS = 86_400_000;
/** Checks a day per monitor: one a minute. */
const PER_DAY = 1440;

/** The page's workspace, its monitors, rollups, incidents and maintenance. Returns the page's slug. */
export async function seedStatusPage(
  prisma: PrismaClient,
  input: { components: number; days: number; targetUrl: string },
): Promise<{ workspaceId: string; slug: string }> {
  const ws = await seedWorkspace(prisma, 'bench-page');
  const monitors = await createMonitorsBulk(prisma, {
    workspaceId: ws.id,
    count: input.components,
    type: 'http',
    target: input.targetUrl,
    intervalSeconds: 60,
    // Paused while the API scenarios run (no worker is up then); shown with their last check state below.
    enabled: false,
    name: 'Service',
  });
  const ids = monitors.map((m) => m.id);
  await prisma.monitor.updateMany({ where: { id: { in: ids } }, data: { enabled: true, status: 'up' } });
  await prisma.monitor.update({ where: { id: ids[1]! }, data: { status: 'degraded' } });
  await prisma.monitor.update({ where: { id: ids[2]! }, data: { status: 'down' } });
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const rollups = ids.flatMap((monitorId, m) =>
    Array.from({ length: input.days }, (_, d) => {
      // A few failed checks on about one day in seven, a bad day now and then, and a few slow checks elsewhere.
      const k = (m * 31 + d * 7) % 97;
      const downCount = k < 14 ? (k % 5) + 1 : k === 50 ? 90 : 0;
      return {
        monitorId,
        region: 'local',
        day: new Date(today - d * DAY_MS),
        total: d === 0 ? Math.floor(((Date.now() - today) / DAY_MS) * PER_DAY) + 1 : PER_DAY,
        downCount,
        degradedCount: k > 80 ? k - 80 : 0,
      };
    }),
  );
  for (let i = 0; i < rollups.length; i += 5000)
    await prisma.checkRollupDaily.createMany({ data: rollups.slice(i, i + 5000) });

  const now = Date.now();
  const incident = (title: string, monitorId: string, startedAgoMs: number, resolvedAgoMs: number | null) =>
    prisma.incident.create({
      data: {
        workspaceId: ws.id,
        monitorId,
        openMonitorId: resolvedAgoMs === null ? monitorId : null,
        title,
        status: resolvedAgoMs === null ? 'open' : 'resolved',
        source: 'monitor',
        startedAt: new Date(now - startedAgoMs),
        resolvedAt: resolvedAgoMs === null ? null : new Date(now - resolvedAgoMs),
        updates: {
          create: [
            {
              status: 'investigating',
              message: `${title}: we are looking into it.`,
              createdAt: new Date(now - startedAgoMs),
            },
            ...(resolvedAgoMs === null
              ? [
                  {
                    status: 'identified' as const,
                    message: 'A bad deploy; rolling back.',
                    createdAt: new Date(now - startedAgoMs / 2),
                  },
                ]
              : [{ status: 'resolved' as const, message: 'Fixed.', createdAt: new Date(now - resolvedAgoMs) }]),
          ],
        },
      },
    });
  await incident('Service 3 is down', ids[2]!, 3_600_000, null);
  for (let i = 0; i < 5; i++)
    await incident(`Service ${i + 4} was down`, ids[i + 3]!, (i * 2 + 2) * DAY_MS, (i * 2 + 2) * DAY_MS - 1_800_000);
  await prisma.maintenanceWindow.create({
    data: {
      workspaceId: ws.id,
      title: 'Database upgrade',
      body: 'Read-only for a few minutes.',
      startsAt: new Date(now - 600_000),
      endsAt: new Date(now + 3_600_000),
      components: { create: [{ componentId: (await componentOf(prisma, ids[10]!))! }] },
    },
  });
  const slug = `bench-${randomUUID().slice(0, 8)}`;
  await prisma.statusPage.create({ data: { workspaceId: ws.id, name: 'Bench status', slug, isPublic: true } });
  return { workspaceId: ws.id, slug };
}

async function componentOf(prisma: PrismaClient, monitorId: string): Promise<string | null> {
  return (
    (await prisma.monitor.findUnique({ where: { id: monitorId }, select: { componentId: true } }))?.componentId ?? null
  );
}

type Options = Parameters<typeof autocannon>[0];

/** The answer's size as sent (fetch decodes gzip: Content-Length is the size on the wire), then the load. */
async function measurePage(opts: Options, warmupSeconds: number, durationSeconds: number): Promise<StatusPageVariant> {
  const first = await fetch(opts.url, { headers: opts.headers as Record<string, string> });
  // Read in full either way (an unread body holds its connection): the bytes on the wire when the length is given.
  const body = await first.arrayBuffer();
  const bytes = Number(first.headers.get('content-length') ?? body.byteLength);
  if (!first.ok) throw new Error(`GET ${opts.url} answered ${first.status}`);
  return { ...(await measure(opts, warmupSeconds, durationSeconds)), bytes };
}

export async function runStatusPage(
  input: {
    apiUrl: string;
    slug: string;
    components: number;
    days: number;
    connections: number;
    durationSeconds: number;
    warmupSeconds: number;
  },
  log: (msg: string) => void,
): Promise<StatusPageResult> {
  const url = `${input.apiUrl}/status/${input.slug}`;
  const common = { url, connections: input.connections, pipelining: 1, timeout: 10 } as const;
  // As browsers and aggregators ask: gzip accepted (the page is gzipped once per load, then sent as is).
  const html = await measurePage(
    { ...common, headers: { accept: 'text/html', 'accept-encoding': 'gzip' } },
    input.warmupSeconds,
    input.durationSeconds,
  );
  log(
    `GET /status/{slug} (HTML, ${html.bytes} bytes): ${Math.round(html.rps)} req/s, p50 ${html.p50Ms} ms, p99 ${html.p99Ms} ms`,
  );
  const json = await measurePage(
    { ...common, headers: { accept: 'application/json', 'accept-encoding': 'gzip' } },
    input.warmupSeconds,
    input.durationSeconds,
  );
  log(
    `GET /status/{slug} (JSON, ${json.bytes} bytes): ${Math.round(json.rps)} req/s, p50 ${json.p50Ms} ms, p99 ${json.p99Ms} ms`,
  );
  return {
    components: input.components,
    days: input.days,
    connections: input.connections,
    durationSeconds: input.durationSeconds,
    html,
    json,
  };
}
