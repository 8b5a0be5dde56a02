/**
 * Two API processes behind one Redis and one PostgreSQL, each with its own connections: the per-token rate limit
 * and Idempotency-Key hold across both, under concurrent requests split between them, and racing writes leave
 * Redis schedules in line with PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CheckScheduler, createPrisma, createWorkerRedis, type PrismaClient } from '@statusvane/shared';
import { addMember, createToken, createUser, createWorkspace } from '../../apps/api/src/admin/admin-commands.js';
import { uniq } from '../support/harness.js';
import {
  createScratchDatabase,
  deleteKeys,
  freePort,
  killAll,
  startApiProcess,
  type Proc,
  type ScratchDatabase,
} from './support/processes.js';

const LIMIT = 30;
const prefix = `bull-rep-${randomUUID().slice(0, 8)}`;

let db: ScratchDatabase;
let prisma: PrismaClient;
let replicas: Array<{ proc: Proc; base: string }>;
let workspaceId: string;

beforeAll(async () => {
  db = await createScratchDatabase('replicas');
  prisma = createPrisma(db.url, { max: 3 });
  workspaceId = (await createWorkspace(prisma, { slug: uniq('rep'), name: 'Replicas' })).id;
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL!,
    QUEUE_PREFIX: prefix,
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
  };
  const ports = [await freePort(), await freePort()];
  const procs = await Promise.all(ports.map((port, i) => startApiProcess(`api-${i + 1}`, port, env)));
  replicas = procs.map((proc, i) => ({ proc, base: `http://127.0.0.1:${ports[i]}` }));
}, 120_000);

afterAll(async () => {
  await killAll();
  await prisma?.$disconnect();
  await deleteKeys(process.env.REDIS_URL!, [`${prefix}:*`]).catch(() => undefined);
  await db?.drop();
}, 60_000);

const orgToken = async (role: 'owner' | 'viewer' = 'owner') =>
  (await createToken(prisma, { kind: 'org', workspace: workspaceId, role })).token;

interface Answer {
  replica: number;
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function send(
  replica: number,
  method: string,
  path: string,
  token: string,
  opts: { body?: object; key?: string } = {},
): Promise<Answer> {
  const res = await fetch(`${replicas[replica]!.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(opts.body ? { 'content-type': 'application/json' } : {}),
      ...(opts.key ? { 'idempotency-key': opts.key } : {}),
    },
    body: opts.body ? JSON.stringify(opts.body) : undefined,
    signal: AbortSignal.timeout(20_000),
  });
  return { replica, status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('two API replicas', () => {
  it('share one rate-limit budget per token: 40 concurrent requests split across both, exactly 30 pass', async () => {
    const token = await orgToken('viewer');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(i % 2, 'GET', '/api/v1/monitors', token)),
    );
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect([ok.length, limited.length]).toEqual([LIMIT, 40 - LIMIT]);
    // Each point of the budget was spent exactly once, whichever replica spent it.
    expect(ok.map((a) => Number(a.headers.get('ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(
      Array.from({ length: LIMIT }, (_, i) => i),
    );
    // (Each replica alone would have let all 40 through: 20 each, under its own budget of 30.)
    for (const a of limited) {
      expect(a.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Spent on both replicas; another token of the same workspace still has its own.
    expect((await send(0, 'GET', '/api/v1/monitors', token)).status).toBe(429);
    expect((await send(1, 'GET', '/api/v1/monitors', token)).status).toBe(429);
    const other = await orgToken('viewer');
    expect((await send(1, 'GET', '/api/v1/monitors', other)).status).toBe(200);
  }, 60_000);

  it('honour an Idempotency-Key across both: 20 concurrent creates with one key make one monitor', async () => {
    const token = await orgToken();
    const key = randomUUID();
    const name = uniq('idem');
    const body = { name, target: 'https://93.184.215.14/health' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2, 'POST', '/api/v1/monitors', token, { body, key })),
    );

    expect(await prisma.monitor.count({ where: { name } })).toBe(1);
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].every((s) => s === 201 || s === 409)).toBe(true);
    const created = answers.filter((a) => a.status === 201);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const a of created) expect(a.body).toEqual(created[0]!.body);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body).toEqual({ error: { code: 'conflict', message: expect.any(String) } });
      expect(a.headers.get('retry-after')).toBe('1');
    }

    // Once settled, a retry on either replica replays the same answer.
    const original = created.find((a) => a.headers.get('idempotent-replayed') !== 'true')!;
    for (const replica of [0, 1]) {
      const replay = await send(replica, 'POST', '/api/v1/monitors', token, { body, key });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(original.body);
    }
    // The same key with another body is refused on the other replica too, and creates nothing.
    const other = await send(1 - original.replica, 'POST', '/api/v1/monitors', token, {
      body: { ...body, name: `${name}-2` },
      key,
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ error: { code: 'invalid_request' } });
    expect(await prisma.monitor.count({ where: { name: { startsWith: name } } })).toBe(1);
    // Another principal's identical key is its own.
    const stranger = await send(0, 'POST', '/api/v1/monitors', await orgToken(), { body, key });
    expect(stranger.status).toBe(201);
    expect(stranger.headers.get('idempotent-replayed')).toBeNull();
    expect(await prisma.monitor.count({ where: { name } })).toBe(2);
  }, 60_000);

  it('share keys between two personal tokens of one user, whichever replica each goes to', async () => {
    const user = await createUser(prisma, { email: `${uniq('u')}@example.test` });
    await addMember(prisma, { workspace: workspaceId, email: user.email, role: 'member' });
    const [laptop, ci] = [
      (await createToken(prisma, { kind: 'personal', email: user.email })).token,
      (await createToken(prisma, { kind: 'personal', email: user.email })).token,
    ];
    const key = randomUUID();
    const body = { name: uniq('personal'), target: 'https://93.184.215.14/health' };
    const first = await send(0, 'POST', '/api/v1/monitors', laptop, { body, key });
    expect(first.status).toBe(201);
    const again = await send(1, 'POST', '/api/v1/monitors', ci, { body, key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await prisma.monitor.count({ where: { name: body.name } })).toBe(1);
    for (const r of replicas) expect(r.proc.alive()).toBe(true);
  }, 60_000);

  it('keep Redis schedules in line with PostgreSQL when pause and resume race on the two replicas', async () => {
    const token = await orgToken();
    const connection = createWorkerRedis(process.env.REDIS_URL!);
    const scheduler = new CheckScheduler(['local'], connection, prefix);
    try {
      const monitorIds: string[] = [];
      for (let i = 0; i < 5; i++) {
        const created = await send(i % 2, 'POST', '/api/v1/monitors', token, {
          body: { name: uniq('race'), target: 'https://93.184.215.14/health' },
        });
        monitorIds.push((created.body.data as { id: string }).id);
      }
      const mismatches: string[] = [];
      for (let round = 0; round < 20; round++) {
        // Pause on one replica and resume on the other at the same moment; whichever commits last wins, and Redis
        // must end up agreeing with it.
        await Promise.all(
          monitorIds.flatMap((id, i) => [
            send((round + i) % 2, 'PATCH', `/api/v1/monitors/${id}`, token, { body: { enabled: false } }),
            send((round + i + 1) % 2, 'PATCH', `/api/v1/monitors/${id}`, token, { body: { enabled: true } }),
          ]),
        );
        // An enabled monitor's partition has its scheduler (a paused one is left out by the partition's member read,
        // whatever Redis holds: docs/adr/0020-partitioned-scheduling.md).
        for (const m of await prisma.monitor.findMany({
          where: { id: { in: monitorIds }, enabled: true },
          select: { id: true, intervalSeconds: true, checkOffsetMs: true },
        })) {
          const partition = { everyMs: m.intervalSeconds * 1000, offsetMs: m.checkOffsetMs, region: 'local' };
          if ((await scheduler.nextPartitionSlot(partition)) === null)
            mismatches.push(`round ${round}: ${m.id} enabled and its partition not scheduled`);
        }
      }
      expect(mismatches).toEqual([]);
    } finally {
      await scheduler.close();
      connection.disconnect();
    }
  }, 90_000);
});
