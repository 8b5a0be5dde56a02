import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import request from 'supertest';
import { encodeCursor, endOfLog, recordEvents } from '@statusvane/shared';
import { storeCheckResultAlone } from '../apps/worker/src/checks/store-result.js';
import { recordDueMaintenanceEvents } from '../apps/worker/src/housekeeping.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- events read loosely, the assertions say what must be there
type Ev = { id: string; type: string; subject: string; sequence: string; data: Record<string, any> };

async function readAll(token: string, query = ''): Promise<{ data: Ev[]; nextCursor: string }> {
  const res = await request(h.app).get(`/api/v1/events${query}`).set(bearer(token));
  expect(res.status).toBe(200);
  return res.body;
}
/**
 * The log shows an event once every transaction older than its own has ended (anywhere on the server: other suites
 * run alongside), so a read right after a write may come a little early: poll until `count` events are there.
 */
async function readUntil(token: string, query: string, count: number): Promise<{ data: Ev[]; nextCursor: string }> {
  const end = Date.now() + 10_000;
  for (;;) {
    const page = await readAll(token, query);
    if (page.data.length >= count || Date.now() > end) return page;
    await new Promise((r) => setTimeout(r, 50));
  }
}
const types = (evs: Ev[]) => evs.map((e) => e.type.replace('com.statusvane.', ''));

const probe = (outcome: 'up' | 'down') => ({
  outcome,
  reason: outcome === 'up' ? null : 'http_500',
  responseMs: 12,
  statusCode: outcome === 'up' ? 200 : 500,
  phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 5 },
});

describe('GET /events', () => {
  it('logs monitor writes as CloudEvents, oldest first, with a cursor, a type filter and a limit', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const other = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send(makeMonitorInput({ name: 'api' }));
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(
      (await request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(tokens.member)).send({ name: 'api 2' })).status,
    ).toBe(200);
    expect((await request(h.app).delete(`/api/v1/monitors/${id}`).set(bearer(tokens.admin))).status).toBe(204);

    const all = await readUntil(tokens.viewer, '', 3);
    expect(types(all.data)).toEqual(['monitor.created', 'monitor.updated', 'monitor.deleted']);
    const [c, u, d] = all.data;
    expect(c).toEqual({
      specversion: '1.0',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'com.statusvane.monitor.created',
      source: `/workspaces/${ws.id}`,
      subject: `monitors/${id}`,
      time: expect.stringMatching(/Z$/),
      datacontenttype: 'application/json',
      sequence: expect.stringMatching(/^[0-9a-f]{32}$/),
      data: { monitor: created.body.data },
    });
    expect(u!.data.monitor.name).toBe('api 2');
    expect(d!.data).toEqual({ monitor: { id, name: 'api 2' } });
    expect(all.nextCursor).toBe(d!.sequence);
    expect(c!.sequence < u!.sequence && u!.sequence < d!.sequence).toBe(true);

    // Another workspace sees none of it.
    expect((await readAll(other.tokens.owner)).data).toEqual([]);

    // Cursor and limit: page by page, then nothing newer gives `after` back.
    const first = await readAll(tokens.viewer, '?limit=2');
    expect(first.data.map((e) => e.id)).toEqual([c!.id, u!.id]);
    const rest = await readAll(tokens.viewer, `?limit=2&after=${first.nextCursor}`);
    expect(rest.data.map((e) => e.id)).toEqual([d!.id]);
    const none = await readAll(tokens.viewer, `?after=${rest.nextCursor}`);
    expect(none).toEqual({ data: [], nextCursor: rest.nextCursor });

    const filtered = await readAll(tokens.viewer, '?types=monitor.deleted,monitor.created');
    expect(types(filtered.data)).toEqual(['monitor.created', 'monitor.deleted']);
  });

  it('answers 400 naming the field for a bad cursor, type or limit', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    for (const [query, field] of [
      ['after=nope', 'after'],
      ['after=ffffffffffffffffffffffffffffffff', 'after'],
      ['after=1&after=2', 'after'],
      ['types=monitor.created,monitor.exploded', 'types[1]'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['page=2', ''],
    ] as const) {
      const res = await request(h.app).get(`/api/v1/events?${query}`).set(bearer(tokens.viewer));
      expect([query, res.status]).toEqual([query, 400]);
      if (field) expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
    // A well-formed cursor beyond the end of the log (no answer ever gave it) would answer nothing, and itself, until
    // the log caught up with it: 400 too. The end itself (a `nextCursor`) is fine.
    const end = encodeCursor(await endOfLog(h.prisma));
    const beyond = encodeCursor({ txid: BigInt(`0x${end.slice(0, 16)}`) + 1_000_000_000n, seq: 0n });
    const past = await request(h.app).get(`/api/v1/events?after=${beyond}`).set(bearer(tokens.viewer));
    expect([past.status, past.body.error?.details?.issues?.map((i: { path: string }) => i.path)]).toEqual([
      400,
      ['after'],
    ]);
    expect((await request(h.app).get(`/api/v1/events?after=${end}`).set(bearer(tokens.viewer))).status).toBe(200);
  });

  it('logs what the worker changes: status changes and incidents opened and resolved, in the same transaction', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = (
      await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.member))
        .send(makeMonitorInput({ name: 'checkout', openThreshold: 1, resolveThreshold: 1 }))
    ).body.data;
    const monitor = {
      ...(await h.prisma.monitor.findUniqueOrThrow({ where: { id: created.id } })),
      regions: ['local'],
    };
    // Wait for monitor.created to show (another suite's open transaction can hold it back) before taking the cursor.
    const start = (await readUntil(tokens.viewer, '', 1)).nextCursor;
    const base = Date.parse('2026-01-01T00:00:00Z');
    const store = (i: number, outcome: 'up' | 'down') =>
      storeCheckResultAlone(h.prisma, {
        monitor,
        region: 'local',
        slot: new Date(base + i * 60_000),
        checkedAt: new Date(base + i * 60_000),
        result: probe(outcome),
      });
    await store(0, 'up');
    await store(1, 'down');
    await store(2, 'down'); // no change: nothing logged
    const incident = await h.prisma.incident.findFirstOrThrow({ where: { monitorId: monitor.id } });
    // A responder acknowledges and posts an update through the API.
    expect(
      (await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member))).status,
    ).toBe(200);
    const update = await request(h.app)
      .post(`/api/v1/incidents/${incident.id}/updates`)
      .set(bearer(tokens.member))
      .send({ status: 'identified', message: 'A bad deploy' });
    expect(update.status).toBe(201);
    await store(3, 'up');

    // In the order of the transactions, and within one in the order of its statements (the worker writes the
    // incident, then the monitor's status).
    const { data } = await readUntil(tokens.viewer, `?after=${start}`, 7);
    expect(types(data)).toEqual([
      'monitor.status_changed',
      'incident.opened',
      'monitor.status_changed',
      'incident.acknowledged',
      'incident.updated',
      'incident.resolved',
      'monitor.status_changed',
    ]);
    expect(data[0]!.data).toEqual({
      monitor: { id: monitor.id, name: 'checkout', type: 'http' },
      previousStatus: 'pending',
      status: 'up',
      checkedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(data[2]!.data).toMatchObject({ previousStatus: 'up', status: 'down' });
    expect(data[1]!).toMatchObject({
      subject: `incidents/${incident.id}`,
      data: {
        incident: {
          id: incident.id,
          title: 'checkout is down',
          status: 'open',
          monitorId: monitor.id,
          startedAt: '2026-01-01T00:01:00.000Z',
          resolvedAt: null,
        },
      },
    });
    expect(data[4]!.data).toMatchObject({
      incident: { id: incident.id, status: 'acknowledged' },
      update: { id: update.body.data.id, status: 'identified', message: 'A bad deploy' },
    });
    expect(data[5]!.data.incident).toMatchObject({ status: 'resolved', resolvedAt: '2026-01-01T00:03:00.000Z' });
  });

  it('logs maintenance started, completed and cancelled once each, from the API and from housekeeping', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const now = Date.now();
    const soon = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(tokens.admin))
      .send({
        title: 'DB upgrade',
        startsAt: new Date(now + 60 * 60_000).toISOString(),
        endsAt: new Date(now + 120 * 60_000).toISOString(),
      });
    expect(soon.status).toBe(201);
    const running = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(tokens.admin))
      .send({
        title: 'Cache flush',
        startsAt: new Date(now - 60_000).toISOString(),
        endsAt: new Date(now + 60 * 60_000).toISOString(),
      });
    expect(running.status).toBe(201);
    expect(types((await readUntil(tokens.viewer, '', 1)).data)).toEqual(['maintenance.started']);

    // Housekeeping, twice: nothing new (the running window's start is keyed), then its end once the clock reaches it.
    await recordDueMaintenanceEvents(h.prisma, new Date());
    expect(types((await readAll(tokens.viewer)).data)).toEqual(['maintenance.started']);
    await recordDueMaintenanceEvents(h.prisma, new Date(now + 61 * 60_000));
    await recordDueMaintenanceEvents(h.prisma, new Date(now + 62 * 60_000));
    const afterEnd = (await readUntil(tokens.viewer, '', 3)).data;
    expect(types(afterEnd)).toEqual(['maintenance.started', 'maintenance.started', 'maintenance.completed']);
    expect(afterEnd.map((e) => e.subject)).toEqual([
      `maintenance/${running.body.data.id}`,
      `maintenance/${soon.body.data.id}`,
      `maintenance/${running.body.data.id}`,
    ]);

    const cancelled = await request(h.app)
      .patch(`/api/v1/maintenance/${soon.body.data.id}`)
      .set(bearer(tokens.admin))
      .send({ status: 'cancel' });
    expect(cancelled.status).toBe(200);
    const last = (await readUntil(tokens.viewer, '', 4)).data.at(-1)!;
    expect(last).toMatchObject({
      type: 'com.statusvane.maintenance.cancelled',
      data: { maintenance: { id: soon.body.data.id, title: 'DB upgrade', cancelledAt: expect.any(String) } },
    });
  });

  it('never lets a cursor pass an event that commits late, and records nothing for a rolled-back change', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const start = (await readAll(tokens.viewer)).nextCursor;
    const client = new pg.Client({ connectionString: h.config.databaseUrl });
    await client.connect();
    try {
      // A transaction writes an event first (it has the lower transaction id) and commits last.
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO events (id, "workspaceId", type, subject, data) VALUES (gen_random_uuid(), $1, 'monitor.deleted', 'monitors/late', '{}')`,
        [ws.id],
      );
      await h.prisma.$transaction((tx) =>
        recordEvents(tx, [{ workspaceId: ws.id, type: 'monitor.deleted', subject: 'monitors/early', data: {} }]),
      );
      // The early committer's event is held back while the late one may still commit below it.
      const during = await readAll(tokens.viewer, `?after=${start}`);
      expect(during).toEqual({ data: [], nextCursor: start });
      await client.query('COMMIT');

      const after = await readUntil(tokens.viewer, `?after=${during.nextCursor}`, 2);
      expect(after.data.map((e) => e.subject)).toEqual(['monitors/late', 'monitors/early']);

      // A rolled-back write leaves no event.
      await client.query('BEGIN');
      await client.query(`UPDATE monitors SET status = 'down' WHERE "workspaceId" = $1`, [ws.id]);
      await client.query(
        `INSERT INTO events (id, "workspaceId", type, subject, data) VALUES (gen_random_uuid(), $1, 'monitor.deleted', 'monitors/gone', '{}')`,
        [ws.id],
      );
      await client.query('ROLLBACK');
      expect((await readAll(tokens.viewer, `?after=${after.nextCursor}`)).data).toEqual([]);
    } finally {
      await client.end();
    }
    expect(encodeCursor({ txid: 1n, seq: 2n })).toBe('00000000000000010000000000000002');
  });

  it("goes with its workspace: deleting a workspace deletes its events, and no other's", async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    for (const w of [a, b])
      await h.prisma.$transaction((tx) =>
        recordEvents(tx, [{ workspaceId: w.ws.id, type: 'monitor.deleted', subject: 'monitors/x', data: {} }]),
      );
    await h.prisma.workspace.delete({ where: { id: a.ws.id } });
    expect(await h.prisma.event.count({ where: { workspaceId: a.ws.id } })).toBe(0);
    expect(await h.prisma.event.count({ where: { workspaceId: b.ws.id } })).toBe(1);
  });
});

describe('secrets in the event log', () => {
  /** The ping secret is the last segment of a heartbeat's pingUrl. */
  const secretOf = (pingUrl: string) => new URL(pingUrl).pathname.split('/').pop()!;

  it("never carries a heartbeat's ping secret: created, updated, paused, applied, pruned, deleted", async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send({ type: 'heartbeat', name: 'backup', intervalSeconds: 300 });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const secrets = [secretOf(created.body.data.pingUrl)];
    const renamed = await request(h.app)
      .patch(`/api/v1/monitors/${id}`)
      .set(bearer(tokens.member))
      .send({ name: 'backup 2' });
    expect(renamed.status).toBe(200);
    const paused = await request(h.app)
      .patch(`/api/v1/monitors/${id}`)
      .set(bearer(tokens.member))
      .send({ enabled: false });
    expect(paused.status).toBe(200);
    // config/apply records its own monitor.created and monitor.updated (and a prune deletes).
    const apply = (monitors: unknown[], prune = false) =>
      request(h.app).post('/api/v1/config/apply').set(bearer(tokens.admin)).send({ version: 1, prune, monitors });
    expect((await apply([{ ref: 'nightly', name: 'nightly', type: 'heartbeat', graceSeconds: 60 }])).status).toBe(200);
    const managed = (await request(h.app).get('/api/v1/monitors?q=nightly').set(bearer(tokens.viewer))).body.data[0];
    secrets.push(secretOf(managed.pingUrl));
    expect((await apply([{ ref: 'nightly', name: 'nightly', type: 'heartbeat', graceSeconds: 120 }])).status).toBe(200);
    expect((await apply([], true)).status).toBe(200);
    expect((await request(h.app).delete(`/api/v1/monitors/${id}`).set(bearer(tokens.admin))).status).toBe(204);

    const writes = await readUntil(tokens.viewer, '?types=monitor.created,monitor.updated,monitor.deleted', 7);
    expect(types(writes.data)).toEqual([
      'monitor.created',
      'monitor.updated',
      'monitor.updated',
      'monitor.created',
      'monitor.updated',
      'monitor.deleted',
      'monitor.deleted',
    ]);
    // The record as the API shows it, but the ping URL: `"<redacted>"` (the monitor's own read still has it).
    expect(writes.data[0]!.data).toEqual({ monitor: { ...created.body.data, pingUrl: '<redacted>' } });
    expect(writes.data[2]!.data).toEqual({ monitor: { ...paused.body.data, pingUrl: '<redacted>' } });
    for (const e of writes.data.filter((x) => x.data.monitor.pingUrl !== undefined))
      expect(e.data.monitor.pingUrl).toBe('<redacted>');
    // Nowhere in the log (every type), nor in the audit trail.
    const everything = JSON.stringify((await readAll(tokens.viewer, '?limit=500')).data);
    const audit = await request(h.app).get('/api/v1/audit-events?perPage=250').set(bearer(tokens.admin));
    expect(audit.status).toBe(200);
    for (const secret of secrets) {
      expect(everything).not.toContain(secret);
      expect(JSON.stringify(audit.body)).not.toContain(secret);
    }
  });

  it('redacts ping URLs that events recorded before the fix still held (migration)', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const pingUrl = 'http://localhost:3000/ping/0123456789abcdef0123456789abcdef';
    const legacy = (type: string, url: string | null) =>
      h.prisma.$executeRaw`
        INSERT INTO events (id, "workspaceId", type, subject, data)
        VALUES (gen_random_uuid(), ${ws.id}::uuid, ${type}, 'monitors/x',
          ${JSON.stringify({ monitor: { id: 'x', type: url ? 'heartbeat' : 'http', pingUrl: url } })}::jsonb)`;
    await legacy('monitor.created', pingUrl);
    await legacy('monitor.updated', pingUrl);
    await legacy('monitor.updated', null);
    const sql = readFileSync('prisma/migrations/20261126070744_redact_ping_urls_in_events/migration.sql', 'utf8');
    await h.prisma.$executeRawUnsafe(sql);
    const page = await readUntil(tokens.viewer, '', 3);
    expect(page.data.map((e) => e.data.monitor.pingUrl)).toEqual(['<redacted>', '<redacted>', null]);
  });
});
