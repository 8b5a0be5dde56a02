/**
 * Retention (docs/adr/0005-check-results-retention.md): housekeeping deletes raw results, hourly rollups and daily
 * rollups past their retention, in bounded batches, through indexes. The rows here are dated in the year 2000 and
 * "now" is 2001-01-01, so the prune touches nothing that other suites (sharing the test database) write. Raw results
 * of that age are in the default partition of check_results (no day partition covers them), pruned row by row;
 * the legacy partition, pruned the same way, and dropping whole daily partitions are tested on a database of their
 * own (result-partitions.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CheckScheduler, DEFAULT_RETENTION, parseConfig, type PrismaClient } from '@statusvane/shared';
import type { RetentionDays } from '@statusvane/shared';
import { housekeepingRound, pruneExpired } from '../apps/worker/src/housekeeping.js';
import { makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const NOW = new Date('2001-01-01T00:00:00.000Z');
const DAY = 86_400_000;
const daysBefore = (days: number, plusMs = 0) => new Date(NOW.getTime() - days * DAY + plusMs);
const RETENTION: RetentionDays = {
  checkResultsDays: 35,
  hourlyRollupsDays: 31,
  dailyRollupsDays: 91,
  auditEventsDays: 400,
};

async function monitorRow(prisma: PrismaClient) {
  const { ws } = await makeWorkspace(prisma);
  const component = await prisma.component.create({ data: { workspaceId: ws.id, name: 'API' } });
  return prisma.monitor.create({
    data: {
      workspaceId: ws.id,
      componentId: component.id,
      name: 'API',
      target: 'https://93.184.215.14/',
      enabled: false,
    },
  });
}

/** Old and new rows of every kind for one monitor; returns what must survive. */
async function seed(prisma: PrismaClient, monitorId: string) {
  const old = {
    results: [...[36, 40, 41, 42, 50, 60].map((d) => daysBefore(d)), daysBefore(35, -1)],
    hours: [32, 33, 40, 31.5].map((d) => daysBefore(d)),
    days: ['2000-09-01', '2000-09-30', '2000-10-01'],
  };
  const kept = {
    // Exactly at the cutoff is not older than it: kept.
    results: [daysBefore(35), daysBefore(35, 1), daysBefore(1), NOW],
    hours: [daysBefore(31), daysBefore(30), daysBefore(0)],
    // now - 91 days = 2000-10-02: that day and later are kept.
    days: ['2000-10-02', '2000-12-31', '2001-01-01'],
  };
  const result = (at: Date) => ({
    monitorId,
    region: 'local',
    slot: at,
    checkedAt: at,
    outcome: 'up' as const,
    responseMs: 10,
  });
  await prisma.checkResult.createMany({ data: [...old.results, ...kept.results].map(result) });
  await prisma.checkRollupHourly.createMany({
    data: [...old.hours, ...kept.hours].map((hour) => ({ monitorId, region: 'local', hour, total: 1 })),
  });
  await prisma.checkRollupDaily.createMany({
    data: [...old.days, ...kept.days].map((d) => ({
      monitorId,
      region: 'local',
      day: new Date(`${d}T00:00:00Z`),
      total: 1,
    })),
  });
  return { old, kept };
}

async function remaining(prisma: PrismaClient, monitorId: string) {
  const [results, hours, days] = await Promise.all([
    // Raw or packed (a housekeeping round packs what is older than two days: docs/adr/0017-packed-results.md).
    prisma.$queryRaw<Array<{ checkedAt: Date }>>`
      SELECT "checkedAt" FROM check_results_all WHERE "monitorId" = ${monitorId}::uuid ORDER BY "checkedAt"`,
    prisma.checkRollupHourly.findMany({ where: { monitorId }, select: { hour: true }, orderBy: { hour: 'asc' } }),
    prisma.checkRollupDaily.findMany({ where: { monitorId }, select: { day: true }, orderBy: { day: 'asc' } }),
  ]);
  return {
    results: results.map((r) => r.checkedAt.toISOString()),
    hours: hours.map((r) => r.hour.toISOString()),
    days: days.map((r) => r.day.toISOString().slice(0, 10)),
  };
}

const sorted = (dates: Date[]) => dates.map((d) => d.toISOString()).sort();

describe('retention', () => {
  it('deletes exactly the rows older than each retention, in batches, and nothing newer', async () => {
    const m = await monitorRow(h.prisma);
    const { old, kept } = await seed(h.prisma, m.id);
    // Heartbeat pings go with raw results: one just past retention, one just inside.
    const pingAt = (days: number, ms: number) => new Date(NOW.getTime() - days * 86_400_000 + ms);
    await h.prisma.heartbeatPing.createMany({
      data: [
        { monitorId: m.id, at: pingAt(35, -1), kind: 'success' },
        { monitorId: m.id, at: pingAt(35, 1), kind: 'start' },
      ],
    });
    // The event log is kept 30 days, whatever the check retention.
    const eventAt = (days: number, ms: number) => new Date(NOW.getTime() - days * 86_400_000 + ms);
    const keptEvent = await h.prisma.event.create({
      data: {
        workspaceId: m.workspaceId,
        type: 'monitor.created',
        subject: 'monitors/x',
        data: {},
        time: eventAt(30, 1),
      },
    });
    await h.prisma.event.create({
      data: {
        workspaceId: m.workspaceId,
        type: 'monitor.created',
        subject: 'monitors/x',
        data: {},
        time: eventAt(30, -1),
      },
    });
    // Webhook deliveries are kept as long as the events (30 days, by createdAt), whatever their status.
    const hook = await h.prisma.webhook.create({
      data: { workspaceId: m.workspaceId, urlEnc: 'x', urlDisplay: 'x', secretEnc: 'x', cursorTxid: 0n },
    });
    const delivery = (seq: number, days: number, ms: number, status: 'sent' | 'failed' | 'pending') => ({
      webhookId: hook.id,
      eventSeq: BigInt(seq),
      eventId: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
      eventType: 'monitor.created',
      status,
      createdAt: eventAt(days, ms),
    });
    await h.prisma.webhookDelivery.createMany({
      data: [delivery(1, 30, -1, 'sent'), delivery(2, 31, 0, 'failed'), delivery(3, 30, 1, 'pending')],
    });
    // Uptime accounting's spans go with daily counts, by their end; an open one (the monitor was created paused)
    // stays whatever its age.
    await h.prisma.monitorSpan.createMany({
      data: [
        { monitorId: m.id, kind: 'missed', region: 'local', startedAt: daysBefore(92), endedAt: daysBefore(91, -1) },
        { monitorId: m.id, kind: 'degraded', startedAt: daysBefore(92), endedAt: daysBefore(91, 1) },
      ],
    });
    // Batches of 2: 7 old results take 4 DELETEs (2+2+2+1), the loop ending at the short one.
    const report = await pruneExpired(h.prisma, RETENTION, NOW, { batchSize: 2 });
    expect(report).toEqual({
      checkResults: old.results.length,
      resultPartitions: 0,
      packedResultDays: 0,
      hourlyRollups: old.hours.length,
      dailyRollups: old.days.length,
      monitorSpans: 1,
      heartbeatPings: 1,
      events: 1,
      webhookDeliveries: 2,
      auditEvents: 0,
    });
    expect((await h.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id } })).map((d) => d.eventSeq)).toEqual(
      [3n],
    );
    expect(await h.prisma.event.findMany({ where: { workspaceId: m.workspaceId }, select: { id: true } })).toEqual([
      { id: keptEvent.id },
    ]);
    expect(await h.prisma.heartbeatPing.findMany({ where: { monitorId: m.id }, select: { kind: true } })).toEqual([
      { kind: 'start' },
    ]);
    expect((await h.prisma.monitorSpan.findMany({ where: { monitorId: m.id } })).map((x) => x.kind).sort()).toEqual([
      'degraded',
      'paused',
    ]);
    expect(await remaining(h.prisma, m.id)).toEqual({
      results: sorted(kept.results),
      hours: sorted(kept.hours),
      days: kept.days,
    });
    // Nothing left to do: a second pass deletes nothing.
    expect(await pruneExpired(h.prisma, RETENTION, NOW, { batchSize: 2 })).toEqual({
      checkResults: 0,
      resultPartitions: 0,
      packedResultDays: 0,
      hourlyRollups: 0,
      dailyRollups: 0,
      monitorSpans: 0,
      heartbeatPings: 0,
      events: 0,
      webhookDeliveries: 0,
      auditEvents: 0,
    });
  });

  it('deletes audit events older than their retention (400 days by default, AUDIT_EVENTS_RETENTION_DAYS), oldest first', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const { ws: other } = await makeWorkspace(h.prisma);
    const auditAt = (days: number, ms = 0) => new Date(NOW.getTime() - days * DAY + ms);
    const event = (workspaceId: string, at: Date, action: string) => ({
      workspaceId,
      at,
      actorType: 'cli' as const,
      actorId: 'ops',
      actorName: 'ops@host',
      action,
      resourceType: 'monitor',
      resourceId: '00000000-0000-4000-8000-000000000001',
    });
    await h.prisma.auditEvent.createMany({
      data: [
        event(ws.id, auditAt(500), 'monitor.created'),
        event(other.id, auditAt(401), 'monitor.created'),
        event(ws.id, auditAt(400, -1), 'monitor.updated'),
        // Exactly at the cutoff is not older than it: kept, as everything after it.
        event(ws.id, auditAt(400), 'monitor.updated'),
        event(other.id, auditAt(399), 'monitor.updated'),
        event(ws.id, auditAt(31), 'monitor.deleted'),
        event(ws.id, auditAt(29), 'monitor.deleted'),
      ],
    });
    const left = async () =>
      (
        await h.prisma.auditEvent.findMany({
          where: { workspaceId: { in: [ws.id, other.id] }, resourceType: 'monitor' },
          orderBy: { at: 'asc' },
          select: { at: true },
        })
      ).map((e) => (NOW.getTime() - e.at.getTime()) / DAY);

    // The default (what the worker runs with when nothing is configured), in batches of 2.
    const report = await pruneExpired(h.prisma, DEFAULT_RETENTION, NOW, { batchSize: 2 });
    expect(DEFAULT_RETENTION.auditEventsDays).toBe(400);
    expect(report.auditEvents).toBe(3);
    expect(await left()).toEqual([400, 399, 31, 29]);
    // AUDIT_EVENTS_RETENTION_DAYS=30, read by the configuration as the worker reads it.
    const configured = parseConfig({ ...process.env, AUDIT_EVENTS_RETENTION_DAYS: '30' }).retention;
    expect(configured.auditEventsDays).toBe(30);
    expect((await pruneExpired(h.prisma, configured, NOW)).auditEvents).toBe(3);
    expect(await left()).toEqual([29]);
  });

  it('a housekeeping round prunes with the configured retention, at most maxBatches per table per round', async () => {
    const m = await monitorRow(h.prisma);
    const { old, kept } = await seed(h.prisma, m.id);
    const prefix = uniq('hk');
    // No regions: the round's schedule reconciliation has nothing to write to Redis.
    const scheduler = new CheckScheduler([], h.redis, prefix);
    const logged: unknown[] = [];
    const logger = {
      info: (...a: unknown[]) => logged.push(a),
      warn: () => undefined,
      error: () => undefined,
    } as unknown as Parameters<typeof housekeepingRound>[0]['logger'];
    const deps = {
      prisma: h.prisma,
      redis: h.redis,
      scheduler,
      logger,
      lockPrefix: prefix,
      retention: RETENTION,
      prune: { batchSize: 2, maxBatches: 2 },
    };
    try {
      expect(await housekeepingRound(deps, 1000, NOW)).toBe(true);
      // Budget of 2 batches of 2: 4 of the 7 old results, the oldest first; the other kinds fit.
      const afterFirst = await remaining(h.prisma, m.id);
      expect(afterFirst.results).toEqual(
        sorted([...old.results.sort((a, b) => a.getTime() - b.getTime()).slice(4), ...kept.results]),
      );
      expect(afterFirst.hours).toEqual(sorted(kept.hours));
      expect(afterFirst.days).toEqual(kept.days);
      expect(logged).toContainEqual([
        'housekeeping',
        expect.objectContaining({ checkResults: 4, hourlyRollups: old.hours.length, dailyRollups: old.days.length }),
      ]);
      // What was left of the old results, and the kept ones at least two days old, are packed now.
      expect(logged).toContainEqual(['results packed', { partitions: [], results: expect.any(Number) }]);
      // The lock lets one worker per period run it; the next period finishes the backlog (the packed days now).
      expect(await housekeepingRound(deps, 1000, NOW)).toBe(false);
      await h.redis.del(`${prefix}:housekeeping:lock`);
      expect(await housekeepingRound(deps, 1000, NOW)).toBe(true);
      expect((await remaining(h.prisma, m.id)).results).toEqual(sorted(kept.results));
    } finally {
      await h.redis.del(`${prefix}:housekeeping:lock`);
      await scheduler.close();
    }
  });

  it('each prune statement finds its rows through an index, not by scanning the table', async () => {
    const plans = await h.prisma.$transaction(async (tx) => {
      // With sequential and bitmap scans priced out, the planner still scans when no index can serve the query, and
      // otherwise walks an index in the order the statement asks for. (Left free, it may pick a bitmap scan over a
      // primary key whose leading column is not the time: on a small shared test table that is as cheap; on a
      // table of real size it reads the whole index.)
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
      // Nor a sort after a whole scan of another index that holds the time column (a primary key whose leading
      // column is the monitor: on a few hundred rows that other suites left, an index-only scan of it and a sort
      // cost less than the time index; on a table of real size they read it all).
      await tx.$executeRawUnsafe('SET LOCAL enable_sort = off');
      const explain = async (sql: string) =>
        (await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${sql}`))
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      return {
        default: await explain(
          `SELECT ctid FROM check_results_default WHERE "checkedAt" < now() ORDER BY "checkedAt" LIMIT 5000`,
        ),
        hourly: await explain(
          `SELECT "monitorId", region, hour FROM check_rollups_hourly WHERE hour < now() ORDER BY hour LIMIT 5000`,
        ),
        daily: await explain(
          `SELECT "monitorId", region, day FROM check_rollups_daily WHERE day < current_date ORDER BY day LIMIT 5000`,
        ),
        audit: await explain(`SELECT id FROM audit_events WHERE at < now() ORDER BY at LIMIT 5000`),
        events: await explain(`SELECT seq FROM events WHERE time < now() ORDER BY time LIMIT 5000`),
        deliveries: await explain(
          `SELECT id FROM webhook_deliveries WHERE "createdAt" < now() ORDER BY "createdAt" LIMIT 5000`,
        ),
        packed: await explain(
          `SELECT "monitorId", region, day FROM check_results_packed WHERE day <= now() ORDER BY day LIMIT 5000`,
        ),
      };
    });
    expect(plans.default).toMatch(/Index (Only )?Scan (using|on) "?check_results_default_checkedAt_idx"?/);
    expect(plans.hourly).toMatch(/Index (Only )?Scan (using|on) "?check_rollups_hourly_hour_idx"?/);
    expect(plans.daily).toMatch(/Index (Only )?Scan (using|on) "?check_rollups_daily_day_idx"?/);
    expect(plans.audit).toMatch(/Index (Only )?Scan (using|on) "?audit_events_at_idx"?/);
    expect(plans.events).toMatch(/Index (Only )?Scan (using|on) "?events_time_idx"?/);
    expect(plans.deliveries).toMatch(/Index (Only )?Scan (using|on) "?webhook_deliveries_createdAt_idx"?/);
    expect(plans.packed).toMatch(/Index (Only )?Scan (using|on) "?check_results_packed_day_idx"?/);
    for (const plan of Object.values(plans)) expect(plan).not.toMatch(/Seq Scan/);
  });
});
