// Issue 29 (beyond-the-seed §8): uptime reports under the workspace accounting policy, through the real API on
// PostgreSQL: each policy option changes the figure as documented, CSV matches JSON, roles, If-Match, 400s.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { UPTIME_CSV_HEADER } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import {
  listMonitorUptimes,
  UPTIME_WINDOWS,
  type UptimeWindow,
} from '../apps/api/src/services/monitors/list-monitor-uptimes.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, serviceCtx, type Harness } from './support/harness.js';

let h: Harness;
let app: ReturnType<typeof createApp>;
/** The API's clock: 2 November 2026, noon UTC. */
const NOW = new Date('2026-11-02T12:00:00Z');
beforeAll(() => {
  h = makeHarness();
  app = createApp({ ...h.deps, clock: () => NOW });
});
afterAll(async () => {
  await h.close();
});

const at = (iso: string) => new Date(iso);
const OCTOBER_SECONDS = 31 * 86_400;

type Ws = Awaited<ReturnType<typeof makeWorkspace>>;

let created = 0;
async function createMonitor(w: Ws, over: Record<string, unknown> = {}) {
  const res = await request(app).post('/api/v1/monitors').set(bearer(w.tokens.owner)).send(makeMonitorInput(over));
  expect(res.status).toBe(201);
  const id = res.body.data.id as string;
  // Created before the month reported on, in the order of these calls (reports list the oldest first).
  await h.prisma.monitor.update({
    where: { id },
    data: { createdAt: new Date(at('2026-09-20T00:00:00Z').getTime() + ++created * 1000) },
  });
  return { id, componentId: res.body.data.componentId as string, record: res.body.data };
}

/**
 * October 2026 of one monitor: 30 min down (an incident, degraded around it), 15 min degraded, 2 h of maintenance,
 * 6 h paused and a missed minute; a manual incident and another monitor's incident that count for nothing.
 */
async function seedOctober(w: Ws, m: { id: string; componentId: string }) {
  const other = await createMonitor(w, { name: 'Other' });
  const monitorIncident = await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: m.id,
      title: 'down',
      source: 'monitor',
      status: 'resolved',
      startedAt: at('2026-10-05T10:01:00Z'),
      downStartedAt: at('2026-10-05T10:00:00Z'),
      resolvedAt: at('2026-10-05T10:30:00Z'),
    },
  });
  await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      title: 'manual',
      source: 'manual',
      status: 'resolved',
      startedAt: at('2026-10-06T00:00:00Z'),
      resolvedAt: at('2026-10-06T01:00:00Z'),
    },
  });
  await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: other.id,
      title: 'other',
      source: 'monitor',
      status: 'resolved',
      startedAt: at('2026-10-07T00:00:00Z'),
      downStartedAt: at('2026-10-07T00:00:00Z'),
      resolvedAt: at('2026-10-07T05:00:00Z'),
    },
  });
  await h.prisma.maintenanceWindow.create({
    data: {
      workspaceId: w.ws.id,
      title: 'upgrade',
      startsAt: at('2026-10-10T00:00:00Z'),
      endsAt: at('2026-10-10T02:00:00Z'),
      components: { create: [{ componentId: m.componentId }] },
    },
  });
  await h.prisma.monitorSpan.createMany({
    data: [
      { monitorId: m.id, kind: 'degraded', startedAt: at('2026-10-05T09:50:00Z'), endedAt: at('2026-10-05T10:40:00Z') },
      { monitorId: m.id, kind: 'degraded', startedAt: at('2026-10-12T01:00:00Z'), endedAt: at('2026-10-12T01:15:00Z') },
      { monitorId: m.id, kind: 'paused', startedAt: at('2026-10-15T00:00:00Z'), endedAt: at('2026-10-15T06:00:00Z') },
      {
        monitorId: m.id,
        kind: 'missed',
        region: 'local',
        startedAt: at('2026-10-20T00:00:00Z'),
        endedAt: at('2026-10-20T00:01:00Z'),
      },
    ],
  });
  return { monitorIncident, other };
}

const SECONDS = { down: 1800, degraded: 2100, maintenance: 7200, noData: 21_660 };
const UP = OCTOBER_SECONDS - SECONDS.down - SECONDS.degraded - SECONDS.maintenance - SECONDS.noData;
/** Truncated to 4 decimals, as documented. */
const percent = (up: number, counted: number) => Math.floor((up * 1_000_000) / counted) / 10_000;

const uptime = (w: Ws, id: string, query: string, token = w.tokens.viewer) =>
  request(app).get(`/api/v1/monitors/${id}/uptime?${query}`).set(bearer(token));
const putPolicy = (w: Ws, body: object, token = w.tokens.admin, ifMatch?: string) => {
  const req = request(app).put('/api/v1/settings/accounting').set(bearer(token));
  return (ifMatch ? req.set('If-Match', ifMatch) : req).send(body);
};

describe('GET /monitors/{id}/uptime under each policy', () => {
  it('counts each second once by precedence, and each policy option changes the figure as documented', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await createMonitor(w, { slaTarget: 99.9 });
    expect(m.record.slaTarget).toBe(99.9);
    const { monitorIncident } = await seedOctober(w, m);
    const october = 'from=2026-10-01&to=2026-11-01&granularity=month';

    const base = await uptime(w, m.id, october);
    expect(base.status).toBe(200);
    const counted = UP + SECONDS.down + SECONDS.degraded;
    expect(base.body.data).toMatchObject({
      policy: { maintenance: 'excluded', degraded: 'up', noData: 'excluded', version: 1 },
      timezone: 'UTC',
      periods: [
        {
          from: '2026-10-01T00:00:00.000Z',
          to: '2026-11-01T00:00:00.000Z',
          upSeconds: UP,
          downSeconds: SECONDS.down,
          degradedSeconds: SECONDS.degraded,
          maintenanceSeconds: SECONDS.maintenance,
          noDataSeconds: SECONDS.noData,
          countedSeconds: counted,
          uptimePercent: percent(UP + SECONDS.degraded, counted),
          incidents: [monitorIncident.id],
          slaMet: true,
          errorBudgetSeconds: (counted * 0.1) / 100,
          errorBudgetRemainingSeconds: (counted * 0.1) / 100 - SECONDS.down,
        },
      ],
    });
    expect(base.body.data.total).toEqual(base.body.data.periods[0]);

    // Each option, alone, against the defaults: [body, counted, counted as up].
    const cases: Array<[object, number, number]> = [
      [{ maintenance: 'up' }, counted + SECONDS.maintenance, UP + SECONDS.degraded + SECONDS.maintenance],
      [{ maintenance: 'down' }, counted + SECONDS.maintenance, UP + SECONDS.degraded],
      [{ degraded: 'down' }, counted, UP],
      [{ noData: 'up' }, counted + SECONDS.noData, UP + SECONDS.degraded + SECONDS.noData],
      [{ noData: 'down' }, counted + SECONDS.noData, UP + SECONDS.degraded],
    ];
    let version = 1;
    for (const [body, expectCounted, expectUp] of cases) {
      const put = await putPolicy(w, body);
      expect(put.status).toBe(200);
      version++;
      expect(put.body.data).toMatchObject({ ...body, version });
      const res = await uptime(w, m.id, october);
      expect([body, res.body.data.policy.version, res.body.data.total]).toEqual([
        body,
        version,
        expect.objectContaining({
          countedSeconds: expectCounted,
          uptimePercent: percent(expectUp, expectCounted),
          // The seconds in each state never depend on the policy.
          upSeconds: UP,
          downSeconds: SECONDS.down,
        }),
      ]);
    }
  });

  it('cuts days at local midnight across a daylight-saving change, and weeks on Mondays', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await createMonitor(w);
    const days = await uptime(w, m.id, 'from=2026-10-24&to=2026-10-27&timezone=Europe/Berlin');
    expect(days.status).toBe(200);
    expect(
      days.body.data.periods.map((p: { from: string; countedSeconds: number }) => [p.from, p.countedSeconds]),
    ).toEqual([
      ['2026-10-23T22:00:00.000Z', 86_400],
      ['2026-10-24T22:00:00.000Z', 90_000], // 25 hours: clocks went back
      ['2026-10-25T23:00:00.000Z', 86_400],
    ]);
    const weeks = await uptime(w, m.id, 'from=2026-10-01&to=2026-11-01&granularity=week&timezone=Europe/Berlin');
    expect(weeks.body.data.periods.map((p: { from: string }) => p.from)).toEqual([
      '2026-09-30T22:00:00.000Z',
      '2026-10-04T22:00:00.000Z', // Monday 5 October
      '2026-10-11T22:00:00.000Z',
      '2026-10-18T22:00:00.000Z',
      '2026-10-25T23:00:00.000Z',
    ]);
    expect(weeks.body.data.total).toMatchObject({
      from: '2026-09-30T22:00:00.000Z',
      to: '2026-10-31T23:00:00.000Z',
      countedSeconds: 31 * 86_400 + 3600,
      uptimePercent: 100,
    });
  });

  it('refuses bad granularity, from after to, more than 400 days back, unknown parameters and timezones', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await createMonitor(w);
    const cases: Array<[string, string]> = [
      ['granularity=year', 'granularity'],
      ['from=2026-10-10&to=2026-10-01', 'from'],
      ['from=2026-10-10&to=2026-10-10', 'from'],
      ['from=2025-09-01', 'from'],
      ['from=2026-13-01', 'from'],
      ['from=yesterday', 'from'],
      ['timezone=Mars/Olympus', 'timezone'],
      ['color=blue', 'color'],
      ['from=2026-10-01&from=2026-10-02', 'from'],
    ];
    for (const [query, path] of cases) {
      const res = await uptime(w, m.id, query);
      expect([query, res.status, res.body.error?.details?.issues?.map((i: { path: string }) => i.path)]).toEqual([
        query,
        400,
        [path],
      ]);
    }
    // 400 days back (from the start of that day) is allowed; the default range is 30 days.
    expect((await uptime(w, m.id, 'from=2025-09-28')).status).toBe(200);
    const byDefault = await uptime(w, m.id, '');
    expect(byDefault.body.data.periods).toHaveLength(30);
    expect(byDefault.body.data.total.to).toBe(NOW.toISOString());
    expect((await uptime(w, '00000000-0000-4000-8000-000000000000', '')).status).toBe(404);
  });
});

describe('GET /reports/uptime', () => {
  it('pages the monitors matching the filters; CSV (Accept or format) parses to the same figures as the JSON', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await createMonitor(w, { name: 'API, "public"' });
    const { other } = await seedOctober(w, m);
    const query = 'from=2026-10-01&to=2026-11-01&granularity=week';
    const json = await request(app).get(`/api/v1/reports/uptime?${query}`).set(bearer(w.tokens.viewer));
    expect(json.status).toBe(200);
    expect(json.body.pagination).toMatchObject({ total: 2, page: 1 });
    expect(json.body.data.map((r: { monitorId: string }) => r.monitorId)).toEqual([m.id, other.id]);
    expect(json.body.data[0]).toMatchObject({ monitorName: 'API, "public"', slaTarget: null, policy: { version: 1 } });

    for (const ask of [
      (r: request.Test) => r.set('Accept', 'text/csv'),
      (r: request.Test) => r.query({ format: 'csv' }),
    ]) {
      const csv = await ask(request(app).get(`/api/v1/reports/uptime?${query}`).set(bearer(w.tokens.viewer)));
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.text.split('\r\n')[0]).toBe(UPTIME_CSV_HEADER);
      const rows = parse(csv.text, { columns: true }) as Array<Record<string, string>>;
      const fromJson = json.body.data.flatMap(
        (r: { monitorId: string; monitorName: string; periods: Array<Record<string, unknown>> }) =>
          r.periods.map((p) => ({
            monitor_id: r.monitorId,
            monitor_name: r.monitorName,
            period_start: p.from,
            period_end: p.to,
            uptime_percent: p.uptimePercent === null ? '' : String(p.uptimePercent),
            up_seconds: String(p.upSeconds),
            degraded_seconds: String(p.degradedSeconds),
            down_seconds: String(p.downSeconds),
            maintenance_seconds: String(p.maintenanceSeconds),
            no_data_seconds: String(p.noDataSeconds),
            incidents: (p.incidents as string[]).join(' '),
          })),
      );
      expect(rows).toEqual(fromJson);
      expect(rows).toHaveLength(2 * 5);
    }

    // Filters of GET /monitors and monitorIds; a page of one.
    const filtered = await request(app)
      .get(`/api/v1/reports/uptime?${query}&q=other&perPage=1`)
      .set(bearer(w.tokens.viewer));
    expect(filtered.body.data.map((r: { monitorId: string }) => r.monitorId)).toEqual([other.id]);
    const byIds = await request(app)
      .get(`/api/v1/reports/uptime?${query}&monitorIds=${m.id}&format=csv`)
      .set(bearer(w.tokens.viewer));
    const byIdsRows = parse(byIds.text, { columns: true }) as Array<{ monitor_id: string }>;
    expect(new Set(byIdsRows.map((r) => r.monitor_id))).toEqual(new Set([m.id]));
    const bad = await request(app)
      .get(`/api/v1/reports/uptime?granularity=hour&status=nope`)
      .set(bearer(w.tokens.viewer));
    expect(bad.status).toBe(400);
    // Another workspace's monitor is not in this one's report.
    const stranger = await makeWorkspace(h.prisma);
    const none = await request(app).get(`/api/v1/reports/uptime?monitorIds=${m.id}`).set(bearer(stranger.tokens.owner));
    expect(none.body.data).toEqual([]);
  });
});

describe('/settings/accounting', () => {
  it('is read by every role, changed only by managers with If-Match, versioned and audited', async () => {
    const w = await makeWorkspace(h.prisma);
    const read = await request(app).get('/api/v1/settings/accounting').set(bearer(w.tokens.viewer));
    expect(read.status).toBe(200);
    expect(read.headers.etag).toBe('"1"');
    expect(read.body.data).toEqual({
      maintenance: 'excluded',
      degraded: 'up',
      noData: 'excluded',
      timezone: 'UTC',
      reportRecipients: [],
      version: 1,
    });
    for (const role of ['viewer', 'member'] as const)
      expect((await putPolicy(w, { maintenance: 'down' }, w.tokens[role])).status).toBe(403);
    const bad = await putPolicy(w, { maintenance: 'sometimes', timezone: 'Nowhere/Else', extra: 1 });
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'extra',
      'maintenance',
      'timezone',
    ]);
    const tooMany = await putPolicy(w, {
      reportRecipients: Array.from({ length: 21 }, (_, i) => `a${i}@example.test`),
    });
    expect(tooMany.status).toBe(400);
    const body = { maintenance: 'down', timezone: 'Europe/Berlin', reportRecipients: ['sre@example.test'] };
    const stale = await putPolicy(w, body, w.tokens.owner, '"2"');
    expect([stale.status, stale.body.error.details]).toEqual([412, { version: 1 }]);
    const ok = await putPolicy(w, body, w.tokens.owner, '"1"');
    expect([ok.status, ok.headers.etag, ok.body.data]).toEqual([
      200,
      '"2"',
      { ...read.body.data, ...body, version: 2 },
    ]);
    // The same policy again changes nothing: same version, no event.
    expect((await putPolicy(w, body, w.tokens.owner, '"2"')).body.data.version).toBe(2);
    const events = await h.prisma.auditEvent.findMany({
      where: { workspaceId: w.ws.id, resourceType: 'accounting_policy' },
    });
    expect(events.map((e) => [e.action, e.resourceId, e.changes])).toEqual([
      [
        'accounting_policy.updated',
        w.ws.id,
        {
          maintenance: { from: 'excluded', to: 'down' },
          timezone: { from: 'UTC', to: 'Europe/Berlin' },
          reportRecipients: { from: [], to: ['sre@example.test'] },
        },
      ],
    ]);
    // A PUT replaces the whole policy: what it leaves out goes back to the default.
    const back = await putPolicy(w, {}, w.tokens.owner);
    expect(back.body.data).toEqual({ ...read.body.data, version: 3 });
  });

  it('POST /reports/uptime/send: managers only, 409 without recipients, 202 with them (once per Idempotency-Key)', async () => {
    const w = await makeWorkspace(h.prisma);
    const send = (token: string, body: object, key?: string) => {
      const req = request(app).post('/api/v1/reports/uptime/send').set(bearer(token));
      return (key ? req.set('Idempotency-Key', key) : req).send(body);
    };
    expect((await send(w.tokens.member, { month: '2026-10' })).status).toBe(403);
    expect((await send(w.tokens.admin, { month: '2026-10' })).status).toBe(409);
    await putPolicy(w, { reportRecipients: ['ops@example.test'] });
    for (const month of ['2026-12', '2025-01', '2026-1'])
      expect([month, (await send(w.tokens.admin, { month })).status]).toEqual([month, 400]);
    const first = await send(w.tokens.admin, { month: '2026-10' }, 'send-1');
    expect(first.status).toBe(202);
    expect(first.body.data).toMatchObject({ month: '2026-10', recipients: ['ops@example.test'], status: 'pending' });
    const again = await send(w.tokens.admin, { month: '2026-10' }, 'send-1');
    expect([again.status, again.body.data.id]).toEqual([202, first.body.data.id]);
    expect(await h.prisma.uptimeReportMail.count({ where: { workspaceId: w.ws.id } })).toBe(1);
  });
});

describe('the accounting policy as code', () => {
  it('a workspace document states it: plan shows the change, apply writes it once (version, audit), the export plans back to noop', async () => {
    const w = await makeWorkspace(h.prisma);
    const doc = {
      version: 1,
      accounting: { maintenance: 'down', timezone: 'Europe/Berlin', reportRecipients: ['sre@example.test'] },
    };
    const post = (path: string, body: object) =>
      request(app).post(`/api/v1/config/${path}`).set(bearer(w.tokens.owner)).send(body);
    const plan = await post('plan', doc);
    expect(plan.status).toBe(200);
    expect(plan.body.data.changes).toEqual([
      {
        action: 'update',
        resourceType: 'accounting_policy',
        ref: 'accounting',
        id: w.ws.id,
        fields: {
          maintenance: { from: 'excluded', to: 'down' },
          timezone: { from: 'UTC', to: 'Europe/Berlin' },
          reportRecipients: { from: [], to: ['sre@example.test'] },
        },
      },
    ]);
    const applied = await post('apply', { ...doc, planId: plan.body.data.planId });
    expect([applied.status, applied.body.data.summary]).toEqual([200, { create: 0, update: 1, delete: 0, noop: 0 }]);
    const read = await request(app).get('/api/v1/settings/accounting').set(bearer(w.tokens.viewer));
    expect(read.body.data).toMatchObject({ ...doc.accounting, degraded: 'up', noData: 'excluded', version: 2 });
    expect(
      await h.prisma.auditEvent.count({ where: { workspaceId: w.ws.id, action: 'accounting_policy.updated' } }),
    ).toBe(1);
    expect((await post('apply', doc)).body.data.summary).toMatchObject({ update: 0, noop: 1 });
    const exported = await request(app).get('/api/v1/config').set(bearer(w.tokens.owner));
    expect(exported.body.data.accounting).toEqual({
      maintenance: 'down',
      degraded: 'up',
      noData: 'excluded',
      timezone: 'Europe/Berlin',
      reportRecipients: ['sre@example.test'],
    });
    expect((await post('plan', exported.body.data)).body.data.summary).toMatchObject({ update: 0, create: 0 });
    // A document without `accounting` leaves the policy alone; a bad one is a 400 at its path.
    expect((await post('apply', { version: 1 })).body.data.changes).toEqual([]);
    const bad = await post('plan', { version: 1, accounting: { noData: 'sometimes' } });
    expect([bad.status, bad.body.error.details.issues.map((i: { path: string }) => i.path)]).toEqual([
      400,
      ['accounting.noData'],
    ]);
  });
});

describe("the console's uptime figures (listMonitorUptimes)", () => {
  it('come from the accounting function under the workspace policy, over windows ending now; another workspace counts nothing', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await createMonitor(w);
    await h.prisma.monitor.update({ where: { id: m.id }, data: { createdAt: at('2026-09-03T12:00:00Z') } });
    const incident = (from: string, to: string) => ({
      workspaceId: w.ws.id,
      monitorId: m.id,
      title: 'down',
      source: 'monitor' as const,
      status: 'resolved' as const,
      startedAt: at(from),
      downStartedAt: at(from),
      resolvedAt: at(to),
    });
    // 30 min down in the last 24 h, 1 h more in the last 7 days, 2 h more in the last 30; 2 h of maintenance today.
    await h.prisma.incident.createMany({
      data: [
        incident('2026-11-02T06:00:00Z', '2026-11-02T06:30:00Z'),
        incident('2026-10-30T00:00:00Z', '2026-10-30T01:00:00Z'),
        incident('2026-10-10T00:00:00Z', '2026-10-10T02:00:00Z'),
      ],
    });
    await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'upgrade',
        startsAt: at('2026-11-02T08:00:00Z'),
        endsAt: at('2026-11-02T10:00:00Z'),
        components: { create: [{ componentId: m.componentId }] },
      },
    });
    const other = await createMonitor(await makeWorkspace(h.prisma));
    const ctx = serviceCtx(w.ws, 'viewer', { now: NOW });
    const figures = (windows: UptimeWindow[] = [...UPTIME_WINDOWS]) =>
      listMonitorUptimes(h.deps, { ctx, input: { monitorIds: [m.id, other.id], windows } });

    const day = 86_400;
    // Maintenance left out (the default policy); the 90 days start before the monitor did: 60 days counted.
    expect((await figures()).get(m.id)).toEqual({
      '24h': percent(day - 7200 - 1800, day - 7200),
      '7d': percent(7 * day - 7200 - 5400, 7 * day - 7200),
      '30d': percent(30 * day - 7200 - 12_600, 30 * day - 7200),
      '90d': percent(60 * day - 7200 - 12_600, 60 * day - 7200),
    });
    expect((await figures()).get(other.id)).toEqual({ '24h': null, '7d': null, '30d': null, '90d': null });
    expect((await figures(['24h'])).get(m.id)).toEqual({
      '24h': percent(day - 7200 - 1800, day - 7200),
      '7d': null,
      '30d': null,
      '90d': null,
    });
    // The policy changes the figures: maintenance counted down.
    expect((await putPolicy(w, { maintenance: 'down' }, w.tokens.admin, '"1"')).status).toBe(200);
    expect((await figures(['24h'])).get(m.id)!['24h']).toBe(percent(day - 7200 - 1800, day));
  });
});

describe('timelines as stored', () => {
  it('an incident still open and a span still going count up to now; instants between seconds count from the next second', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await createMonitor(w);
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: m.id,
        title: 'down',
        source: 'monitor',
        status: 'open',
        openMonitorId: m.id,
        startedAt: at('2026-11-02T10:01:00Z'),
        downStartedAt: at('2026-11-02T10:00:00.500Z'),
      },
    });
    await h.prisma.monitorSpan.createMany({
      data: [
        { monitorId: m.id, kind: 'paused', startedAt: at('2026-11-02T11:00:00Z') },
        {
          monitorId: m.id,
          kind: 'degraded',
          startedAt: at('2026-11-01T00:00:00.250Z'),
          endedAt: at('2026-11-01T00:10:00.250Z'),
        },
      ],
    });
    const res = await uptime(w, m.id, 'from=2026-11-01&to=2026-11-03&granularity=month');
    expect(res.status).toBe(200);
    // Down from 10:00:01 to now (12:00), paused (no data) from 11:00: the hour both cover is no data.
    expect(res.body.data.total).toMatchObject({
      to: NOW.toISOString(),
      downSeconds: 3599,
      noDataSeconds: 3600,
      degradedSeconds: 600,
      upSeconds: 36 * 3600 - 3599 - 3600 - 600,
    });
  });
});

describe("the console's uptime figures of many monitors", () => {
  it('over 1,000 monitors (read by workspace, rows handed over, bare timelines shared) equal each read by id, and order sort=uptime24h', async () => {
    const w = await makeWorkspace(h.prisma, { plan: 'business' });
    // Monitors without spans differ only by creation: counted as down before it, every second then matters.
    expect((await putPolicy(w, { noData: 'down' }, w.tokens.admin, '"1"')).status).toBe(200);
    const COUNT = 1_050;
    // Created from 30 hours ago, one every 97 s: the last 970 or so inside the 24 hours, each at its own instant.
    await h.prisma.$executeRaw`
      WITH n AS (SELECT g, gen_random_uuid() AS id, gen_random_uuid() AS component FROM generate_series(1, ${COUNT}) g),
      c AS (INSERT INTO components (id, "workspaceId", name) SELECT component, ${w.ws.id}::uuid, 'c' || g FROM n)
      INSERT INTO monitors (id, "workspaceId", "componentId", name, type, target, "intervalSeconds", "timeoutMs",
        "openThreshold", "resolveThreshold", enabled, "graceSeconds", "createdAt", "updatedAt")
      SELECT id, ${w.ws.id}::uuid, component, 'many-' || g, 'http', 'https://example.test', 60, 10000, 2, 2, true, 60,
        ${new Date(NOW.getTime() - 30 * 3_600_000)}::timestamptz + g * interval '97.25 seconds', now()
      FROM n`;
    const rows = await h.prisma.monitor.findMany({
      where: { workspaceId: w.ws.id },
      select: { id: true, componentId: true, createdAt: true, type: true, regions: true },
      orderBy: { createdAt: 'asc' },
    });
    expect(rows).toHaveLength(COUNT);
    const [a, b, c, d, e] = [rows[3]!, rows[500]!, rows[1000]!, rows[20]!, rows[777]!];
    const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);
    await h.prisma.monitorSpan.createMany({
      data: [
        { monitorId: a.id, kind: 'paused', startedAt: hoursAgo(5), endedAt: hoursAgo(4) },
        { monitorId: b.id, kind: 'degraded', startedAt: hoursAgo(2) },
        { monitorId: c.id, kind: 'missed', region: 'local', startedAt: hoursAgo(1), endedAt: hoursAgo(0.5) },
      ],
    });
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: d.id,
        title: 'down',
        source: 'monitor',
        status: 'resolved',
        startedAt: hoursAgo(3),
        downStartedAt: hoursAgo(3),
        resolvedAt: hoursAgo(2.5),
      },
    });
    await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'upgrade',
        startsAt: hoursAgo(1),
        endsAt: hoursAgo(0.25),
        components: { create: [{ componentId: e.componentId }] },
      },
    });
    // Another workspace's monitor with an incident: read with the workspace's rows, counted for nobody here.
    const foreign = await createMonitor(await makeWorkspace(h.prisma));
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: foreign.id,
        title: 'elsewhere',
        source: 'monitor',
        status: 'resolved',
        startedAt: hoursAgo(3),
        downStartedAt: hoursAgo(3),
        resolvedAt: hoursAgo(1),
      },
    });
    const ctx = serviceCtx(w.ws, 'viewer', { now: NOW });
    const all = await listMonitorUptimes(h.deps, { ctx, input: { monitors: rows, windows: ['24h', '7d'] } });
    // The same monitors asked by id, 500 at a time (each read one by one, nothing shared between them).
    const byId = new Map<string, unknown>();
    for (let i = 0; i < rows.length; i += 500) {
      const part = await listMonitorUptimes(h.deps, {
        ctx,
        input: { monitorIds: rows.slice(i, i + 500).map((r) => r.id), windows: ['24h', '7d'] },
      });
      for (const [id, u] of part) byId.set(id, u);
    }
    expect(new Map([...all])).toEqual(byId);
    // Every kind of timeline is among them, and monitors created at different instants differ.
    const day = (id: string) => all.get(id)!['24h'];
    for (const m of [a, b, c, d, e]) expect([m.id, day(m.id)]).not.toEqual([m.id, day(rows[m === a ? 4 : 21]!.id)]);
    expect(day(rows[0]!.id)).toBe(100);
    expect(day(rows[600]!.id)).not.toBe(day(rows[601]!.id));
    // The sorted list (every monitor's figure, then a page of them) follows those figures, ties by name, then id.
    const res = await request(app)
      .get('/api/v1/monitors?sort=uptime24h&perPage=100&page=2')
      .set(bearer(w.tokens.viewer));
    expect(res.status).toBe(200);
    const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
    const names = new Map(
      (await h.prisma.monitor.findMany({ where: { workspaceId: w.ws.id } })).map((m) => [m.id, m.name]),
    );
    const expected = rows
      .map((r) => ({ id: r.id, value: day(r.id), name: names.get(r.id)! }))
      .sort(
        (x, y) =>
          (x.value === y.value ? 0 : x.value === null ? 1 : y.value === null ? -1 : x.value - y.value) ||
          collator.compare(x.name, y.name) ||
          (x.id < y.id ? -1 : 1),
      );
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual(expected.slice(100, 200).map((x) => x.id));
    expect(res.body.pagination.total).toBe(COUNT);
  });
});
