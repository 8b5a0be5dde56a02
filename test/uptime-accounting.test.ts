// Issue 29: what uptime accounting is made of, as the worker and the API write it (docs/adr/0018): an incident's down
// start (the earliest failing result of the regions that made its quorum), degraded and paused spans written by the
// monitors trigger at transitions, missed slots as spans; and the monthly report mail, once with two workers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger, createWorkerRedis, loadUptimeTimelines } from '@statusvane/shared';
import { storeMissedSlots } from '../apps/worker/src/checks/missed-slots.js';
import { storeCheckResultAlone } from '../apps/worker/src/checks/store-result.js';
import { createWorkerRuntime } from '../apps/worker/src/runtime.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startSmtp } from './support/smtp.js';
import { probeResult, waitFor } from './support/worker-harness.js';

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  h = makeHarness({ CHECK_REGIONS: 'eu,us', SMTP_URL: smtp.url });
});
afterAll(async () => {
  await h.close();
  await smtp.close();
});

const spansOf = (monitorId: string, kind: 'paused' | 'degraded' | 'missed') =>
  h.prisma.monitorSpan.findMany({ where: { monitorId, kind }, orderBy: { startedAt: 'asc' } });

describe('what accounting is made of', () => {
  it('down starts at the earliest failing result of the regions that opened the incident; degraded spans follow the status', async () => {
    const w = await makeWorkspace(h.prisma);
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send(makeMonitorInput({ openThreshold: 2, resolveThreshold: 1 }));
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    await h.prisma.monitor.update({ where: { id }, data: { createdAt: new Date(Date.now() - 4 * 3_600_000) } });
    const monitor = { ...(await h.prisma.monitor.findUniqueOrThrow({ where: { id } })), regions: ['eu', 'us'] };
    // Results a minute apart, three hours ago: slot i of each region.
    const base = Math.floor(Date.now() / 60_000) * 60_000 - 3 * 3_600_000;
    const slot = (i: number) => new Date(base + i * 60_000);
    const store = (i: number, region: string, outcome: 'up' | 'down') =>
      storeCheckResultAlone(h.prisma, {
        monitor,
        region,
        slot: slot(i),
        checkedAt: new Date(slot(i).getTime() + 2000),
        result: probeResult(outcome),
      });
    await store(0, 'eu', 'up');
    await store(0, 'us', 'up');
    // eu fails from slot 1, us from slot 2: the quorum (both) is reached with us's second failure, at slot 3.
    await store(1, 'eu', 'down');
    await store(1, 'us', 'up');
    await store(2, 'eu', 'down');
    await store(2, 'us', 'down');
    await store(3, 'eu', 'down');
    const opened = await store(3, 'us', 'down');
    expect(opened.opened).not.toBeNull();
    const incident = await h.prisma.incident.findUniqueOrThrow({ where: { id: opened.opened! } });
    expect([incident.startedAt, incident.downStartedAt]).toEqual([new Date(slot(3).getTime() + 2000), slot(1)]);
    // eu passing again leaves fewer failing regions than the quorum: resolved; us still fails, so still degraded.
    const resolved = await store(4, 'eu', 'up');
    expect(resolved.resolved).toBe(incident.id);
    await store(4, 'us', 'up');

    // Degraded from eu's first failure (one region of two: degraded) until both passed again.
    expect((await spansOf(id, 'degraded')).map((s) => [s.startedAt, s.endedAt])).toEqual([
      [new Date(slot(1).getTime() + 2000), new Date(slot(4).getTime() + 2000)],
    ]);

    // Down from slot 1 to the resolution; degraded only where no incident covers it (none here).
    const uptime = await request(h.app)
      .get(`/api/v1/monitors/${id}/uptime`)
      .query({ from: slot(0).toISOString(), to: slot(5).toISOString() })
      .set(bearer(w.tokens.viewer));
    expect(uptime.status).toBe(200);
    expect(uptime.body.data.total).toMatchObject({
      downSeconds: 3 * 60 + 2,
      degradedSeconds: 0,
      upSeconds: 60 + 58,
      incidents: [incident.id],
    });
  });

  it('paused spans follow enabled, whoever changes it; a missed slot is a span of one interval', async () => {
    const w = await makeWorkspace(h.prisma);
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send(makeMonitorInput({ intervalSeconds: 120 }));
    const id = res.body.data.id as string;
    await h.prisma.monitor.update({ where: { id }, data: { createdAt: new Date(Date.now() - 2 * 3_600_000) } });
    const patch = (enabled: boolean) =>
      request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(w.tokens.owner)).send({ enabled });
    expect((await patch(false)).status).toBe(200);
    const [open] = await spansOf(id, 'paused');
    expect(open).toMatchObject({ endedAt: null });
    // Pausing again changes nothing; resuming closes the span.
    expect((await patch(false)).status).toBe(200);
    expect((await patch(true)).status).toBe(200);
    const [closed, ...none] = await spansOf(id, 'paused');
    expect(none).toEqual([]);
    expect(closed!.endedAt!.getTime()).toBeGreaterThanOrEqual(open!.startedAt.getTime());

    const slot = new Date(Math.floor(Date.now() / 120_000) * 120_000 - 3_600_000);
    const miss = { monitorId: id, region: 'eu', slot, recordedAt: new Date(), reason: 'checks_behind' };
    // Recorded once: a job run twice adds no second span.
    expect(await storeMissedSlots(h.prisma, [miss])).toEqual(['recorded']);
    expect(await storeMissedSlots(h.prisma, [miss])).toEqual(['exists']);
    expect((await spansOf(id, 'missed')).map((s) => [s.region, s.startedAt, s.endedAt])).toEqual([
      ['eu', slot, new Date(slot.getTime() + 120_000)],
    ]);
    // Only eu missed it: us has data, so the slot is not "no data" (every region must have missed it).
    const uptime = await request(h.app)
      .get(`/api/v1/monitors/${id}/uptime`)
      .query({ from: slot.toISOString(), to: new Date(slot.getTime() + 120_000).toISOString() })
      .set(bearer(w.tokens.viewer));
    expect(uptime.body.data.total).toMatchObject({ noDataSeconds: 0, upSeconds: 120 });
    await storeMissedSlots(h.prisma, [{ monitorId: id, region: 'us', slot, recordedAt: new Date(), reason: 'x' }]);
    const both = await request(h.app)
      .get(`/api/v1/monitors/${id}/uptime`)
      .query({ from: slot.toISOString(), to: new Date(slot.getTime() + 120_000).toISOString() })
      .set(bearer(w.tokens.viewer));
    expect(both.body.data.total).toMatchObject({ noDataSeconds: 120, upSeconds: 0, uptimePercent: null });
  });

  it('reads the same timelines by monitor ids and, past 1,000 monitors, by workspace', async () => {
    const w = await makeWorkspace(h.prisma);
    const other = await makeWorkspace(h.prisma);
    const hour = 3_600_000;
    const now = Math.floor(Date.now() / 1000) * 1000;
    const create = async (ws: typeof w) => {
      const res = await request(h.app).post('/api/v1/monitors').set(bearer(ws.tokens.owner)).send(makeMonitorInput());
      return h.prisma.monitor.findUniqueOrThrow({ where: { id: res.body.data.id as string } });
    };
    const [a, b, elsewhere] = [await create(w), await create(w), await create(other)];
    // a: paused for an hour, missed in eu, and an incident; b: an ongoing degraded span; a window covering a's
    // component only; the other workspace's monitor has an incident that must not be read for this one.
    const span = (
      monitorId: string,
      kind: 'paused' | 'missed' | 'degraded',
      region: string,
      from: number,
      to?: number,
    ) => ({
      monitorId,
      kind,
      region,
      startedAt: new Date(from),
      endedAt: to === undefined ? null : new Date(to),
    });
    await h.prisma.monitorSpan.createMany({
      data: [
        span(a.id, 'paused', '', now - 5 * hour, now - 4 * hour),
        span(a.id, 'missed', 'eu', now - 3 * hour, now - 3 * hour + 60_000),
        span(b.id, 'degraded', '', now - 2 * hour),
      ],
    });
    const incident = (monitorId: string, workspaceId: string) => ({
      workspaceId,
      monitorId,
      title: 'Down',
      status: 'resolved' as const,
      impact: 'major' as const,
      source: 'monitor' as const,
      startedAt: new Date(now - 90 * 60_000),
      resolvedAt: new Date(now - hour),
      reason: 'status_code',
    });
    await h.prisma.incident.create({ data: incident(a.id, w.ws.id) });
    await h.prisma.incident.create({ data: incident(elsewhere.id, other.ws.id) });
    await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'Upgrade',
        startsAt: new Date(now - 6 * hour),
        endsAt: new Date(now - 5.5 * hour),
        components: { create: [{ componentId: a.componentId }] },
      },
    });
    const subject = (m: typeof a) => ({
      id: m.id,
      componentId: m.componentId,
      createdAt: m.createdAt,
      regions: ['eu', 'us'],
    });
    const range = { workspaceId: w.ws.id, from: new Date(now - 24 * hour), to: new Date(now) };
    const byIds = await loadUptimeTimelines(h.prisma, {
      ...range,
      monitors: [subject(a), subject(b), subject(elsewhere)],
    });
    // 1,001 asked about (the others are ids of no monitor): read by workspace.
    const padding = Array.from({ length: 998 }, (_, i) => ({
      ...subject(a),
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    }));
    const byWorkspace = await loadUptimeTimelines(h.prisma, {
      ...range,
      monitors: [subject(a), subject(b), subject(elsewhere), ...padding],
    });
    const timelineA = byIds.get(a.id)!;
    expect(timelineA.paused).toEqual([{ from: now - 5 * hour, to: now - 4 * hour }]);
    expect(timelineA.incidents).toEqual([expect.objectContaining({ from: now - 90 * 60_000, to: now - hour })]);
    expect(timelineA.maintenance).toEqual([{ from: now - 6 * hour, to: now - 5.5 * hour }]);
    // Missed in eu only: not missed everywhere.
    expect(timelineA.missed).toEqual([]);
    expect(byIds.get(b.id)!.degraded).toEqual([{ from: now - 2 * hour, to: null }]);
    expect(byIds.get(b.id)!.maintenance).toEqual([]);
    // Asked about under this workspace, the other's monitor has none of its incidents.
    expect(byIds.get(elsewhere.id)!.incidents).toEqual([]);
    for (const m of [a, b, elsewhere]) expect(byWorkspace.get(m.id)).toEqual(byIds.get(m.id));
    expect(byWorkspace.get(padding[0]!.id)).toMatchObject({ paused: [], incidents: [], degraded: [] });
  });
});

describe('the monthly report mail', () => {
  it('arrives once, with the CSV attached, with two worker runtimes sweeping at the same moment', async () => {
    const w = await makeWorkspace(h.prisma);
    const recipient = `${uniq('sre')}@example.test`;
    const put = await request(h.app)
      .put('/api/v1/settings/accounting')
      .set(bearer(w.tokens.owner))
      .send({ timezone: 'Europe/Berlin', reportRecipients: [recipient] });
    expect(put.status).toBe(200);
    await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send(makeMonitorInput({ name: 'Shop' }));
    // 06:30 on 1 December in Berlin: November's report is due. Each runtime sweeps under its own queue prefix, so
    // nothing but PostgreSQL keeps them from sending it twice.
    const clock = () => new Date('2026-12-01T05:30:00Z');
    const runtimes = [1, 2].map(() => {
      const connection = createWorkerRedis(h.config.redis);
      connection.on('error', () => undefined);
      const runtime = createWorkerRuntime({
        config: { ...h.config, queuePrefix: uniq('bull') },
        prisma: h.prisma,
        connection,
        logger: createLogger({ level: 'error', json: true, service: 'test-worker', silent: !process.env.TEST_LOG }),
        housekeeping: false,
        parts: { checks: false, escalations: false, subscribers: false, webhooks: false, reports: true },
        timing: { reportSweepMs: 300, reportClock: clock },
      });
      return { runtime, connection };
    });
    try {
      const mails = () => smtp.mails.filter((m) => m.to.includes(recipient));
      await waitFor(async () => (mails().length ? true : undefined), 15_000, 'the report mail');
      // Several more sweeps of both runtimes: still one.
      await new Promise((r) => setTimeout(r, 1500));
      expect(mails()).toHaveLength(1);
      const raw = mails()[0]!.raw;
      expect(raw).toMatch(/Subject: Uptime report 2026-11/);
      expect(raw).toMatch(/filename=uptime-2026-11\.csv/);
      expect(raw).toMatch(/Shop/);
      const rows = await h.prisma.uptimeReportMail.findMany({ where: { workspaceId: w.ws.id } });
      expect(rows.map((r) => [r.month, r.scheduled, r.status])).toEqual([['2026-11', true, 'sent']]);
    } finally {
      for (const { runtime, connection } of runtimes) {
        await runtime.close();
        connection.disconnect();
      }
    }
  });
});
