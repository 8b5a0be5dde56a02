import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createMonitorSchema, hotTransaction, Prisma, sqlRows } from '@statusvane/shared';
import { monitorCreateData } from '../apps/api/src/services/monitors/monitor-data.js';
import { insertMonitors } from '../apps/api/src/services/monitors/monitor-insert.js';
import { monitorRecordSelect } from '../apps/api/src/services/monitors/monitor-record.js';
import { makeFullHttpMonitorInput, makeMonitorInput } from './support/factories.js';
import { makeHarness, makeWorkspace, type Harness } from './support/harness.js';

// POST /monitors inserts in a hot transaction (docs/adr/0021), the creates of a group together (docs/adr/0022): the
// rows as JSON read by jsonb_populate_recordset. It must store and answer, column for column, what Prisma's create
// does, for every kind of monitor and every optional field: a new column, a default or a type that reads back
// otherwise fails here.

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

/** Request bodies: each kind, as created with the fewest fields and with every optional one. */
const BODIES: Array<[string, Record<string, unknown>]> = [
  ['http, defaults', makeMonitorInput()],
  [
    'http, every field',
    makeFullHttpMonitorInput({
      headers: { 'X-Trace': 'on', 'X-Key': '{{secrets.API_KEY}}' },
      responseSchema: { type: 'object', required: ['ok'] },
      contentType: 'text/plain',
      confirmAfterSeconds: 0,
      dependsOn: [randomUUID()],
      certificateExpiryDays: null,
      sendTraceparent: false,
      openThreshold: 3,
      resolveThreshold: 1,
      timeoutMs: 5000,
      intervalSeconds: 120,
    }),
  ],
  ['http, keyword absent', makeMonitorInput({ keywordAbsent: 'error', certificateExpiryDays: 3 })],
  ['tcp', { type: 'tcp', name: 'Db', target: '93.184.215.14:5432' }],
  [
    'dns',
    {
      type: 'dns',
      name: 'Mx',
      target: 'example.com',
      dnsRecordType: 'MX',
      dnsResolver: '1.1.1.1:53',
      dnsExpected: ['a'],
    },
  ],
  [
    'heartbeat on a schedule',
    {
      type: 'heartbeat',
      name: 'Backup',
      schedule: '0 3 * * *',
      timezone: 'Europe/Paris',
      graceSeconds: 300,
      maxRunSeconds: 3600,
      minRunSeconds: 5,
    },
  ],
  ['heartbeat, interval', { type: 'heartbeat', name: 'Cron', intervalSeconds: 3600 }],
  ['domain', { type: 'domain', name: 'Domain', target: 'example.com', domainExpiryDays: 30 }],
  [
    'api',
    {
      type: 'api',
      name: 'Flow',
      steps: [
        {
          name: 'login',
          method: 'POST',
          url: 'https://93.184.215.14/login',
          headers: { Authorization: 'Bearer {{secrets.TOKEN}}' },
          body: '{"user":"a"}',
        },
      ],
    },
  ],
];

/** What differs between two inserts of one body by design: ids, the clock, a heartbeat's drawn secret. */
function comparable(row: Record<string, unknown>) {
  const drawn = ['id', 'componentId', 'createdAt', 'updatedAt', 'scheduledSince', 'checkOffsetMs', 'pingSecret'];
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, drawn.includes(k) ? [typeof v, v instanceof Date, v === null] : v]),
  );
}

describe('the monitor insert', () => {
  it("stores and answers every kind of monitor, all in one call, as Prisma's create does", async () => {
    const w = await makeWorkspace(h.prisma);
    const now = new Date();
    // A whole-workspace window in progress: the insert's maintenance read answers it for every row.
    await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'Upgrade',
        startsAt: new Date(now.getTime() - 3_600_000),
        endsAt: new Date(now.getTime() + 3_600_000),
      },
    });
    // One row's data for both (sealed secrets draw their IV): a new component and ping secret each.
    const datas = BODIES.map(([, body]) =>
      monitorCreateData(h.config, { workspaceId: w.ws.id, componentId: '' }, createMonitorSchema.parse(body)),
    );
    const fresh = (data: (typeof datas)[number]) => ({
      ...data,
      componentId: randomUUID(),
      ...(data.pingSecret ? { pingSecret: randomUUID() } : {}),
    });
    // Two of each body in one call: rows of one shape share a statement, and answers keep the order of the rows.
    const rows = [...datas, ...datas].map(fresh);
    const viaHot = await hotTransaction(h.prisma, (tx) => insertMonitors(tx, rows, { from: now, to: now }));
    expect(viaHot.map((m) => m.row.componentId)).toEqual(rows.map((r) => r.componentId));
    for (const [i, [name]] of BODIES.entries()) {
      const data = fresh(datas[i]!);
      const viaPrisma = await h.prisma.$transaction(async (tx) => {
        await tx.component.create({
          data: { id: data.componentId, workspaceId: data.workspaceId, name: data.name, createdAt: now },
        });
        return tx.monitor.create({ data, select: monitorRecordSelect });
      });
      for (const hot of [viaHot[i]!, viaHot[i + BODIES.length]!]) {
        expect(hot.workspaceWindows).toHaveLength(1);
        expect([name, comparable(hot.row)]).toStrictEqual([name, comparable(viaPrisma)]);
        const stored = (id: string) =>
          h.prisma.monitor.findUniqueOrThrow({ where: { id }, include: { component: true } });
        const [a, b] = [await stored(hot.row.id), await stored(viaPrisma.id)];
        expect([name, comparable({ ...a, component: comparable(a.component) })]).toStrictEqual([
          name,
          comparable({ ...b, component: comparable(b.component) }),
        ]);
        expect(a.componentId).toBe(hot.row.componentId);
      }
    }
  });
});

describe('the statement shapes a hot transaction prepares', () => {
  it('are bounded: past 64 texts, a new one runs unnamed, with the same answer, and the connection keeps no more', async () => {
    const marker = `shape_${randomUUID().replaceAll('-', '')}`;
    const prepared = await hotTransaction(h.prisma, async (tx) => {
      // 100 texts, each its own shape (a constant in the text), each with a value.
      for (let i = 0; i < 100; i++) {
        const sql = Prisma.sql`SELECT ${i}::int + ${Prisma.raw(String(i))} AS ${Prisma.raw(marker)}`;
        expect([i, await sqlRows(tx, sql)]).toEqual([i, [{ [marker]: 2 * i }]]);
      }
      const { rows } = await tx.client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%' || $1 || '%'`,
        [marker],
      );
      return rows[0]!.n;
    });
    // Some were prepared (the first shapes of the process), never all 100.
    expect(prepared).toBeGreaterThan(0);
    expect(prepared).toBeLessThanOrEqual(64);
  });
});
