import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { maintenanceCoverage, maintenanceUntilByComponent, MONITOR_TYPES, type Prisma } from '@statusvane/shared';
import {
  monitorLookup,
  monitorNowLookup,
  monitorRecordSelect,
  toMonitorRecord,
} from '../apps/api/src/services/monitors/monitor-record.js';
import { bearer, createMonitorNamed, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

// The monitor read behind findOwn and GET /monitors/{id} is a hot statement (docs/adr/0021): it must give, field for
// field, what Prisma's read of monitorRecordSelect gives, for every kind of monitor and every optional field.

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const at = (ms: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, 0) + ms);

/** One monitor per kind, and one with every optional field set, as writes and checks leave them. */
const GRID: Array<[string, Prisma.MonitorUncheckedUpdateInput]> = [
  ['http, as created', {}],
  [
    'http, every field',
    {
      method: 'POST',
      headersEnc: 'v1:k1:abc',
      headerNames: ['X-Api-Key', 'Accept'],
      bodyEnc: 'v1:k1:def',
      encKeyId: 'k0',
      contentType: 'text/plain',
      responseSchema: { type: 'object', required: ['ok'], properties: { ok: { const: true } } },
      jsonAssertion: { path: '$.status', op: 'eq', value: 'ok' },
      metadata: { team: 'payments', tier: '1' },
      expectedStatusCodes: [200, 204],
      keyword: 'healthy',
      keywordAbsent: 'error',
      degradedAfterMs: 800,
      latencyThresholdMs: 1200,
      slaTarget: 99.95,
      certificate: {
        subject: 'CN=x',
        issuer: 'CN=ca',
        validFrom: at(-9e9).toISOString(),
        validTo: at(9e9).toISOString(),
      },
      certificateExpiryDays: null,
      sendTraceparent: false,
      regions: ['eu', 'us'],
      quorum: 1,
      confirmAfterSeconds: 0,
      dependsOn: [randomUUID(), randomUUID()],
      ref: 'web.home',
      environment: 'staging',
      status: 'down',
      lastCheckedAt: at(1),
      version: 7,
      secretRefs: ['API_KEY'],
    },
  ],
  ['tcp, paused', { type: 'tcp', target: '93.184.215.14:5432', enabled: false, status: 'up', lastCheckedAt: at(2) }],
  [
    'heartbeat on a schedule',
    {
      type: 'heartbeat',
      target: null,
      pingSecret: randomUUID().replaceAll('-', ''),
      schedule: '0 3 * * *',
      timezone: 'Europe/Paris',
      graceSeconds: 300,
      lastPingAt: at(3),
      lastPingFailAt: at(4),
      maxRunSeconds: 3600,
      minRunSeconds: 5,
    },
  ],
  ['heartbeat never pinged', { type: 'heartbeat', target: null, pingSecret: randomUUID().replaceAll('-', '') }],
  [
    'dns',
    { type: 'dns', target: 'example.com', dnsRecordType: 'MX', dnsResolver: '1.1.1.1:53', dnsExpected: ['a', 'b'] },
  ],
  [
    'domain',
    {
      type: 'domain',
      target: 'example.com',
      domainExpiryDays: 30,
      domain: { expiresAt: at(4e10).toISOString(), registrar: 'Example Registrar' },
      slaTarget: 90,
    },
  ],
  [
    'api',
    {
      type: 'api',
      steps: [{ name: 'login', method: 'POST', url: 'https://93.184.215.14/login', assertions: [], hasBody: true }],
      stepSecretsEnc: 'v1:k1:ghi',
      secretRefs: ['TOKEN', 'PASSWORD'],
    },
  ],
];

describe('the hot monitor read', () => {
  it('reads every kind of monitor field for field as Prisma reads monitorRecordSelect', async () => {
    const w = await makeWorkspace(h.prisma);
    const now = new Date();
    for (const [name, data] of GRID) {
      const { id } = await createMonitorNamed(h, w, name);
      await h.prisma.monitor.update({ where: { id }, data });
      const prisma = await h.prisma.monitor.findUniqueOrThrow({ where: { id }, select: monitorRecordSelect });
      const hot = await monitorLookup.find(h.prisma, { id, workspaceId: w.ws.id });
      expect([name, hot]).toStrictEqual([name, prisma]);
      const withWindows = await monitorNowLookup(now).find(h.prisma, { id, workspaceId: w.ws.id });
      expect([name, withWindows]).toStrictEqual([name, { row: prisma, windows: [] }]);
      const opts = { publicBaseUrl: 'https://sv.example', checkRegions: ['eu', 'us'], maintenanceUntil: null, now };
      expect(JSON.stringify(toMonitorRecord(hot!, opts))).toBe(JSON.stringify(toMonitorRecord(prisma, opts)));
    }
    // The unfiltered list (hot statements) answers byte for byte as a filter matching every monitor (Prisma) does.
    const list = (query: string) =>
      request(h.app).get(`/api/v1/monitors?${query}`).set(bearer(w.tokens.viewer)).expect(200);
    // Ties of createdAt (a bulk insert) go by id.
    const tied = await h.prisma.monitor.findMany({ where: { workspaceId: w.ws.id }, take: 4, select: { id: true } });
    await h.prisma.monitor.updateMany({ where: { id: { in: tied.map((m) => m.id) } }, data: { createdAt: at(0) } });
    const everyType = `type=${MONITOR_TYPES.join(',')}`;
    for (const page of ['perPage=100', 'perPage=3&page=2', 'perPage=5&page=9']) {
      const [hot, prisma] = await Promise.all([list(page), list(`${page}&${everyType}`)]);
      expect(hot.text).toBe(prisma.text);
    }
    expect((await list('perPage=100')).body.data).toHaveLength(GRID.length);
  });

  it("reads the windows covering the monitor as the windows read judges them, at each asker's clock", async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await createMonitorNamed(h, w, 'Covered');
    const other = await createMonitorNamed(h, w, 'Other');
    const base = Date.now();
    const window = async (startsAt: number, endsAt: number, componentIds: string[], cancelled = false) =>
      h.prisma.maintenanceWindow.create({
        data: {
          workspaceId: w.ws.id,
          title: 'W',
          startsAt: new Date(base + startsAt),
          endsAt: new Date(base + endsAt),
          cancelledAt: cancelled ? new Date(base) : null,
          components: { create: componentIds.map((componentId) => ({ componentId })) },
        },
      });
    await window(-60_000, 600_000, [m.componentId]); // in progress, this component
    await window(-60_000, 900_000, [other.componentId]); // in progress, another component only
    await window(-60_000, 1_200_000, [], true); // cancelled
    await window(300_000, 1_800_000, []); // whole workspace, from 5 minutes on
    await window(-120_000, 1, []); // whole workspace, ending a millisecond after base
    // Clocks in one batch: before the last window ends, at its end, and inside the later window.
    const clocks = [base, base + 1, base + 400_000].map((t) => new Date(t));
    const reads = await Promise.all(
      clocks.map((now) => monitorNowLookup(now).find(h.prisma, { id: m.id, workspaceId: w.ws.id })),
    );
    for (const [i, now] of clocks.entries()) {
      const expected = await maintenanceUntilByComponent(h.prisma, w.ws.id, [m.componentId], now);
      const got = maintenanceCoverage(reads[i]!.windows, [m.componentId], now);
      expect([now, got.get(m.componentId)]).toEqual([now, expected.get(m.componentId)]);
    }
    expect(reads.map((r) => maintenanceCoverage(r!.windows, [m.componentId], clocks[0]!).get(m.componentId))).toEqual([
      new Date(base + 600_000),
      new Date(base + 600_000),
      new Date(base + 600_000),
    ]);
  });
});
