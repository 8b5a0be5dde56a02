// The hot paths that share one query (or one transaction) among the requests and checks of an event-loop turn must
// answer each caller exactly as if it had gone alone: results, flap state, incidents and rollups; pings; tokens.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createResultWriter, storeCheckResults, type StoreInput } from '../apps/worker/src/checks/store-result.js';
import type { ProbeResult } from '../apps/worker/src/probes/types.js';
import { createToken, revokeToken } from '../apps/api/src/admin/admin-commands.js';
import { monitorLookup, monitorNowLookup } from '../apps/api/src/services/monitors/monitor-record.js';
import { authenticate } from '../apps/api/src/services/auth/authenticate.js';
import { receivePing } from '../apps/api/src/services/heartbeats/receive-ping.js';
import {
  createPrisma,
  createGroupCommit,
  hotTransaction,
  insertResultsWithRollups,
  maintenanceWindowsNear,
  Prisma,
  sqlExecute,
  sqlRows,
  type HotTransaction,
} from '@statusvane/shared';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { regionStates } from './support/worker-harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const result = (outcome: ProbeResult['outcome']): ProbeResult => ({
  outcome,
  responseMs: outcome === 'down' ? null : 12,
  statusCode: outcome === 'down' ? 503 : 200,
  reason: outcome === 'down' ? 'unexpected_status:503' : null,
  phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 10 },
});

async function newMonitor(tokens: { owner: string }, over: Record<string, unknown> = {}) {
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(tokens.owner))
    .send(makeMonitorInput({ openThreshold: 2, resolveThreshold: 2, ...over }));
  expect(res.status).toBe(201);
  const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: res.body.data.id as string } });
  return { ...row, regions: ['local'] };
}

async function rollupTotals(monitorId: string) {
  const hourly = await h.prisma.checkRollupHourly.aggregate({
    where: { monitorId },
    _sum: { total: true, downCount: true, responseCount: true },
  });
  const daily = await h.prisma.checkRollupDaily.aggregate({
    where: { monitorId },
    _sum: { total: true, downCount: true },
  });
  return { hourly: hourly._sum, daily: daily._sum };
}

describe('results stored in groups', () => {
  it('applies a group in slot order: one incident opened, then resolved; duplicates and unknown monitors store nothing', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const m = await newMonitor(tokens);
    const base = Date.UTC(2026, 0, 5, 10, 0, 0);
    const at = (i: number) => new Date(base + i * 60_000);
    const input = (i: number, outcome: ProbeResult['outcome'], monitor = m): StoreInput => ({
      monitor,
      region: 'local',
      slot: at(i),
      checkedAt: new Date(at(i).getTime() + 50),
      result: result(outcome),
    });
    // Already stored before the group: its slot must not count again.
    await storeCheckResults(h.prisma, [input(0, 'up')]);
    const ghost = { ...m, id: '00000000-0000-4000-8000-00000000dead' };
    // Out of order on purpose: the group applies by slot.
    const group = [
      input(4, 'up'),
      input(2, 'down'),
      input(1, 'down'),
      input(3, 'down'),
      input(5, 'up'),
      input(2, 'down'),
      input(0, 'up'),
      input(6, 'up', ghost),
    ];
    const out = await storeCheckResults(h.prisma, group);

    expect(out.map((o) => o.stored)).toEqual([true, true, true, true, true, false, false, false]);
    const opened = out.filter((o) => o.opened);
    const resolved = out.filter((o) => o.resolved);
    expect(opened).toHaveLength(1);
    expect(out[1]!.opened).toBe(opened[0]!.opened); // slot 2: the second consecutive failure
    expect(resolved).toHaveLength(1);
    expect(out[4]!.resolved).toBe(opened[0]!.opened); // slot 5: the second consecutive pass

    const incidents = await h.prisma.incident.findMany({ where: { monitorId: m.id } });
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({
      status: 'resolved',
      openMonitorId: null,
      startedAt: new Date(at(2).getTime() + 50),
      resolvedAt: new Date(at(5).getTime() + 50),
    });
    const after = await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } });
    expect(after).toMatchObject({ status: 'up', lastCheckedAt: new Date(at(5).getTime() + 50) });
    expect(await regionStates(h, m.id)).toEqual([
      {
        region: 'local',
        consecutiveFailures: 0,
        consecutivePasses: 2,
        failing: false,
        lastCountedAt: new Date(at(5).getTime() + 50),
      },
    ]);

    const stored = await h.prisma.checkResult.findMany({
      where: { monitorId: m.id, slot: { gte: at(0) } },
      orderBy: { slot: 'asc' },
    });
    expect(stored.map((r) => [r.slot.getTime(), r.outcome, r.statusCode, r.reason])).toEqual([
      [at(0).getTime(), 'up', 200, null],
      [at(1).getTime(), 'down', 503, 'unexpected_status:503'],
      [at(2).getTime(), 'down', 503, 'unexpected_status:503'],
      [at(3).getTime(), 'down', 503, 'unexpected_status:503'],
      [at(4).getTime(), 'up', 200, null],
      [at(5).getTime(), 'up', 200, null],
    ]);
    // Rollups count every stored result once, and only those.
    const all = await h.prisma.checkResult.count({ where: { monitorId: m.id } });
    const totals = await rollupTotals(m.id);
    expect(totals.hourly.total).toBe(all);
    expect(totals.daily.total).toBe(all);
    expect(totals.daily.downCount).toBe(3);
    expect(totals.hourly.responseCount).toBe(all - 3);
  });

  it('stores concurrent results of many monitors exactly once each, with rollups to match', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const monitors = await Promise.all(Array.from({ length: 6 }, () => newMonitor(tokens, { openThreshold: 3 })));
    const base = Date.UTC(2026, 0, 6, 8, 0, 0);
    const inputs = monitors.flatMap((monitor, mi) =>
      Array.from({ length: 5 }, (_, i): StoreInput => ({
        monitor,
        region: 'local',
        slot: new Date(base + i * 1000 + mi),
        checkedAt: new Date(base + i * 1000 + 100),
        result: result(i % 2 ? 'down' : 'up'),
      })),
    );
    // Every result twice (a job that ran twice), all at once: the writer groups them.
    const writer = createResultWriter(h.prisma);
    const out = await Promise.all([...inputs, ...inputs].map((i) => writer.write(i)));
    expect(out.filter((o) => o.stored)).toHaveLength(inputs.length);
    for (const m of monitors) {
      const n = await h.prisma.checkResult.count({ where: { monitorId: m.id, slot: { gte: new Date(base) } } });
      expect(n).toBe(5);
      const all = await h.prisma.checkResult.count({ where: { monitorId: m.id } });
      expect((await rollupTotals(m.id)).hourly.total).toBe(all);
      // Alternating up/down never reaches openThreshold 3.
      expect(await h.prisma.incident.count({ where: { monitorId: m.id } })).toBe(0);
    }
  });
});

describe('a hot transaction (docs/adr/0021-hot-statements-on-the-pool.md)', () => {
  it('writes nothing when it fails half-way, and hands its connection back clean', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const m = await newMonitor(tokens);
    const slot = new Date(Date.UTC(2026, 0, 6, 10, 0, 0));
    const input: StoreInput = { monitor: m, region: 'local', slot, checkedAt: slot, result: result('up') };
    // One connection: the next transaction runs on the one that failed.
    const one = createPrisma(h.config.databaseUrl, { max: 1 });
    try {
      const row = {
        monitorId: m.id,
        region: 'local',
        slot,
        checkedAt: slot,
        outcome: 'up' as const,
        responseMs: 12,
        statusCode: 200,
        reason: null,
        dnsMs: null,
        connectMs: 1,
        tlsMs: null,
        waitingMs: 10,
        certificate: null,
        dnsAnswers: null,
        address: null,
      };
      await expect(
        hotTransaction(one, async (tx) => {
          expect(await insertResultsWithRollups(tx, [row])).toHaveLength(1);
          throw new Error('a later statement failed');
        }),
      ).rejects.toThrow('a later statement failed');
      expect(await h.prisma.checkResult.count({ where: { monitorId: m.id } })).toBe(0);
      expect(await rollupTotals(m.id)).toEqual({
        hourly: { total: null, downCount: null, responseCount: null },
        daily: { total: null, downCount: null },
      });
      const [stored] = await storeCheckResults(one, [input]);
      expect(stored!.stored).toBe(true);
      expect(await h.prisma.checkResult.count({ where: { monitorId: m.id } })).toBe(1);
    } finally {
      await one.$disconnect();
    }
  });
});

describe('group commit (docs/adr/0022-group-commit-of-creates.md)', () => {
  const txid = async (tx: HotTransaction) =>
    (await sqlRows<{ txid: string }>(tx, Prisma.sql`SELECT txid_current()::text AS txid`))[0]!.txid;
  const named = async (workspaceId: string) =>
    (await h.prisma.component.findMany({ where: { workspaceId }, select: { name: true } })).map((c) => c.name).sort();

  it('runs the items of one turn in one transaction; when it fails, each alone, with its own outcome', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const db = createPrisma(h.config.databaseUrl, { max: 2 });
    const runs: string[][] = [];
    // Each item adds a component by its name; one named `fail` throws after adding its own.
    const add = createGroupCommit(
      (names: string[]) =>
        hotTransaction(db, async (tx) => {
          runs.push(names);
          const out: Array<{ name: string; txid: string }> = [];
          for (const name of names) {
            await sqlExecute(
              tx,
              Prisma.sql`INSERT INTO components (id, "workspaceId", name, "createdAt")
                VALUES (${randomUUID()}::uuid, ${ws.id}::uuid, ${name}, now())`,
            );
            if (name.startsWith('fail')) throw new Error(`${name} failed`);
            out.push({ name, txid: await txid(tx) });
          }
          return out;
        }),
      { maxItems: 32, maxInFlight: 2 },
    );
    try {
      const ok = await Promise.all(['a', 'b', 'c'].map(add));
      expect(ok.map((o) => o.name)).toEqual(['a', 'b', 'c']);
      expect(new Set(ok.map((o) => o.txid)).size).toBe(1);
      expect(runs).toEqual([['a', 'b', 'c']]);

      const outcomes = await Promise.allSettled(['d', 'fail-e', 'f'].map(add));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('fail-e failed'));
      // The group, rolled back at its second item, then each item alone.
      expect(runs[1]).toEqual(['d', 'fail-e', 'f']);
      expect(runs.slice(2).sort()).toEqual([['d'], ['f'], ['fail-e']]);
      // The rolled-back attempt left nothing: one component each for the others, none for the failed one.
      expect(await named(ws.id)).toEqual(['a', 'b', 'c', 'd', 'f']);
      // Alone, an item gets a transaction of its own.
      expect((await add('g')).txid).not.toBe(ok[0]!.txid);
    } finally {
      await db.$disconnect();
    }
  });

  it('POST /monitors: concurrent creates with keys each create one monitor, with its event and audit event', async () => {
    const { ws: workspace, tokens } = await makeWorkspace(h.prisma);
    const keys = Array.from({ length: 12 }, () => randomUUID());
    const post = (key: string, i: number) =>
      request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.owner))
        .set('Idempotency-Key', key)
        .send(makeMonitorInput({ name: `together ${i}` }));
    const first = await Promise.all(keys.map(post));
    expect(first.map((r) => r.status)).toEqual(keys.map(() => 201));
    const ids = first.map((r) => r.body.data.id as string);
    expect(new Set(ids).size).toBe(12);
    expect(await h.prisma.monitor.count({ where: { workspaceId: workspace.id } })).toBe(12);
    const events = await h.prisma.event.findMany({ where: { workspaceId: workspace.id, type: 'monitor.created' } });
    expect(events.map((e) => e.subject).sort()).toEqual(ids.map((id) => `monitors/${id}`).sort());
    const audit = await h.prisma.auditEvent.findMany({
      where: { workspaceId: workspace.id, action: 'monitor.created' },
    });
    expect(audit.map((a) => a.resourceId).sort()).toEqual([...ids].sort());
    // Each key answers its own monitor again, byte for byte.
    const again = await Promise.all(keys.map(post));
    expect(again.map((r) => r.headers['idempotent-replayed'])).toEqual(keys.map(() => 'true'));
    expect(again.map((r) => r.text)).toEqual(first.map((r) => r.text));
  });
});

describe('pings recorded together', () => {
  it('answers each concurrent ping for its own secret, 404 for unknown ones', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const beats = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await request(h.app)
          .post('/api/v1/monitors')
          .set(bearer(tokens.owner))
          .send({ type: 'heartbeat', name: 'Job', intervalSeconds: 3600 });
        return {
          id: res.body.data.id as string,
          secret: new URL(res.body.data.pingUrl as string).pathname.split('/').pop()!,
        };
      }),
    );
    const paths = [
      ...beats.map((b) => `/ping/${b.secret}`),
      `/ping/${beats[0]!.secret}`,
      '/ping/unknownunknownunknown0',
      `/ping/${beats[1]!.secret}/fail`,
    ];
    const answers = await Promise.all(paths.map((p) => request(h.app).get(p)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 404, 200]);
    const rows = await h.prisma.monitor.findMany({ where: { id: { in: beats.map((b) => b.id) } } });
    expect(rows.every((r) => r.lastPingAt !== null)).toBe(true);
    expect(rows.filter((r) => r.lastPingFailAt !== null).map((r) => r.id)).toEqual([beats[1]!.id]);
  });
});

describe('the ping statement', () => {
  it('is prepared once per connection, its plan kept for the next batch', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ type: 'heartbeat', name: 'Job', intervalSeconds: 3600 });
    const secret = new URL(res.body.data.pingUrl as string).pathname.split('/').pop()!;
    // One connection: the statements it prepared are those pg_prepared_statements shows it.
    const one = createPrisma(h.config.databaseUrl, { max: 1 });
    try {
      const ping = {
        secret,
        kind: 'success' as const,
        exitCode: null,
        rid: null,
        body: 'ok',
        remoteAddress: null,
        userAgent: null,
      };
      for (let i = 0; i < 2; i++) expect(await receivePing({ prisma: one }, { input: { ...ping } })).not.toBeNull();
      const prepared = await one.$queryRaw<Array<{ statement: string }>>`
        SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%INSERT INTO heartbeat_pings%'`;
      expect(prepared).toHaveLength(1);
      expect(await h.prisma.heartbeatPing.count({ where: { monitorId: res.body.data.id as string } })).toBe(2);
    } finally {
      await one.$disconnect();
    }
  });
});

describe('tokens read together', () => {
  it('gives each concurrent request the answer of its own token', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: b.ws.id, role: 'viewer' }]);
    const personal = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
    const revoked = await createToken(h.prisma, { kind: 'org', workspace: a.ws.id, role: 'viewer' });
    await revokeToken(h.prisma, { id: revoked.id });
    const mon = (await request(h.app).post('/api/v1/monitors').set(bearer(a.tokens.owner)).send(makeMonitorInput()))
      .body.data.id as string;
    const calls = [
      request(h.app).get(`/api/v1/monitors/${mon}`).set(bearer(a.tokens.viewer)),
      request(h.app).get(`/api/v1/monitors/${mon}`).set(bearer(b.tokens.viewer)),
      request(h.app).get(`/api/v1/monitors/${mon}`).set(bearer(revoked.token)),
      request(h.app).get('/api/v1/monitors').set(bearer(personal)),
      request(h.app).get(`/api/v1/monitors/${mon}`).set(bearer(a.tokens.member)),
    ];
    const res = await Promise.all(calls);
    expect(res.map((r) => r.status)).toEqual([200, 404, 401, 200, 200]);
    expect(res[3]!.body.data).toEqual([]);
  });
});

/** How many query plans Prisma compiled (plan cache misses) while `run` ran, read from its own debug log. */
async function planCompilations(run: () => Promise<void>): Promise<number> {
  const g = globalThis as { DEBUG?: string };
  const before = g.DEBUG;
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  g.DEBUG = 'prisma:client:clientEngine';
  try {
    await run();
    return warn.mock.calls.filter((c) => c.some((a) => String(a).includes('query plan cache miss'))).length;
  } finally {
    g.DEBUG = before;
    warn.mockRestore();
  }
}

describe('monitors read together', () => {
  it("answers each caller its own workspace's monitor, with one query plan whatever repeats in a batch", async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const create = async (tokens: { owner: string }) =>
      (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body.data
        .id as string;
    const [a1, a2, b1] = [await create(a.tokens), await create(a.tokens), await create(b.tokens)];
    // One batch per call: the lookups of one turn go in one query.
    const read = (keys: Array<[string, string]>) =>
      Promise.all(keys.map(([id, workspaceId]) => monitorLookup.find(h.prisma, { id, workspaceId })));
    await read([[a1, a.ws.id]]);
    let answers: Array<Array<{ id: string } | null | undefined>> = [];
    const compiled = await planCompilations(async () => {
      answers = [
        await read([
          [a1, a.ws.id],
          [a2, a.ws.id],
        ]),
        await read([
          [a1, a.ws.id],
          [b1, b.ws.id],
          [a2, a.ws.id],
        ]),
        await read([
          [b1, a.ws.id],
          [a1, b.ws.id],
        ]),
      ];
    });
    expect(answers.map((batch) => batch.map((r) => r?.id ?? null))).toEqual([
      [a1, a2],
      [a1, b1, a2],
      [null, null],
    ]);
    expect(compiled).toBe(0);
  });
});

describe('maintenance windows read together', () => {
  it('gives each workspace its own windows near its minute, each with its components, alone or batched', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const mon = async (tokens: { owner: string }) =>
      (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body.data as {
        componentId: string;
      };
    const [a1, a2] = [await mon(a.tokens), await mon(a.tokens)];
    const now = new Date();
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    const window = (workspaceId: string, from: number, to: number, componentIds: string[], cancelled = false) =>
      h.prisma.maintenanceWindow.create({
        data: {
          workspaceId,
          title: 'w',
          startsAt: at(from),
          endsAt: at(to),
          ...(cancelled ? { cancelledAt: now } : {}),
          components: { create: componentIds.map((componentId) => ({ componentId })) },
        },
      });
    await window(a.ws.id, -10, 30, [a1.componentId, a2.componentId]);
    await window(a.ws.id, -10, 30, [a1.componentId], true);
    await window(a.ws.id, 120, 180, []);
    await window(b.ws.id, -5, 5, []);
    const shape = (ws: Array<{ startsAt: Date; endsAt: Date; componentIds: string[] }>) =>
      ws.map((w) => ({ startsAt: w.startsAt.getTime(), endsAt: w.endsAt.getTime(), ids: [...w.componentIds].sort() }));
    const wantA = [
      { startsAt: at(-10).getTime(), endsAt: at(30).getTime(), ids: [a1.componentId, a2.componentId].sort() },
    ];
    const wantB = [{ startsAt: at(-5).getTime(), endsAt: at(5).getTime(), ids: [] }];
    // Alone (the single-workspace statement), then in one batch with the other workspace and a later minute.
    expect(shape(await maintenanceWindowsNear(h.prisma, a.ws.id, now))).toEqual(wantA);
    const [ra, rb, later] = await Promise.all([
      maintenanceWindowsNear(h.prisma, a.ws.id, now),
      maintenanceWindowsNear(h.prisma, b.ws.id, now),
      maintenanceWindowsNear(h.prisma, a.ws.id, at(150)),
    ]);
    expect([shape(ra), shape(rb)]).toEqual([wantA, wantB]);
    expect(shape(later)).toEqual([{ startsAt: at(120).getTime(), endsAt: at(180).getTime(), ids: [] }]);
  });
});

describe('a read of one key', () => {
  it('is planned at its first runs only: the token and monitor reads keep a generic plan on their connection', async () => {
    const a = await makeWorkspace(h.prisma);
    const mon = (await request(h.app).post('/api/v1/monitors').set(bearer(a.tokens.owner)).send(makeMonitorInput()))
      .body.data.id as string;
    // One connection: the statements it prepared, and how each was planned, are those pg_prepared_statements shows it.
    const one = createPrisma(h.config.databaseUrl, { max: 1 });
    try {
      for (let i = 0; i < 8; i++) {
        const ctx = await authenticate(
          { prisma: one, logger: h.deps.logger },
          { authorization: `Bearer ${a.tokens.viewer}`, workspaceHeader: undefined },
        );
        expect(ctx.workspace.id).toBe(a.ws.id);
        const read = monitorNowLookup(new Date());
        expect((await read.find(one, { id: mon, workspaceId: a.ws.id }))?.row.id).toBe(mon);
        expect(await read.find(one, { id: mon, workspaceId: randomUUID() })).toBeUndefined();
      }
      const plans = await one.$queryRaw<Array<{ statement: string; generic: number; custom: number }>>`
        SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
         WHERE statement LIKE '%FROM api_tokens t%' OR statement LIKE '%FROM monitors m%'`;
      // Planned afresh at each run (custom) for the first five, then the generic plan, never planned again. With
      // `= ANY($1)` every run was a custom plan: 0 generic.
      expect(plans.map((p) => [p.statement.includes('ANY('), p.custom, p.generic > 0]).sort()).toEqual([
        [false, 5, true],
        [false, 5, true],
      ]);
    } finally {
      await one.$disconnect();
    }
  });
});

describe('monitor pages read together', () => {
  it('gives each concurrent list request its own workspace, filters and page; identical ones the same answer', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const create = async (tokens: { owner: string }, name: string) =>
      (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput({ name }))).body
        .data.id as string;
    const aIds: string[] = [];
    for (const name of ['a1', 'a2', 'a3']) aIds.push(await create(a.tokens, name));
    const bId = await create(b.tokens, 'b1');
    const list = (token: string, query: string) => request(h.app).get(`/api/v1/monitors?${query}`).set(bearer(token));
    const res = await Promise.all([
      list(a.tokens.viewer, 'perPage=2'),
      list(a.tokens.viewer, 'perPage=2'),
      list(a.tokens.viewer, 'perPage=2&page=2'),
      list(b.tokens.viewer, 'perPage=2'),
      list(a.tokens.viewer, 'perPage=2&q=a3'),
    ]);
    const ids = (r: (typeof res)[number]) => (r.body.data as Array<{ id: string }>).map((m) => m.id);
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(ids(res[0]!)).toEqual(aIds.slice(0, 2));
    expect(res[1]!.body).toEqual(res[0]!.body);
    expect(ids(res[2]!)).toEqual(aIds.slice(2));
    expect(ids(res[3]!)).toEqual([bId]);
    expect(ids(res[4]!)).toEqual([aIds[2]]);
    expect(res.map((r) => r.body.pagination.total)).toEqual([3, 3, 3, 1, 1]);
    // Records serialized once for the batch: the answer is still exactly JSON.stringify of itself, as res.json sends.
    for (const r of res) {
      expect(r.text).toBe(JSON.stringify(r.body));
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });
});
