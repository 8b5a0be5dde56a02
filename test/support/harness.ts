import { randomUUID } from 'node:crypto';
import {
  CheckScheduler,
  EscalationScheduler,
  createApiRedis,
  createLogger,
  createPrisma,
  createSsrfGuard,
  parseConfig,
  type Config,
  type PrismaClient,
  type RedisClient,
} from '@statusvane/shared';
import { createApp } from '../../apps/api/src/app.js';
import type { ApiDeps } from '../../apps/api/src/deps.js';
import type { ServiceContext } from '../../apps/api/src/services/context.js';
import { addMember, createToken, createUser, createWorkspace } from '../../apps/api/src/admin/admin-commands.js';
import request from 'supertest';
import { makeMonitorInput } from './factories.js';

export interface Harness {
  config: Config;
  prisma: PrismaClient;
  redis: RedisClient;
  deps: ApiDeps;
  queuePrefix: string;
  app: ReturnType<typeof createApp>;
  /** Resolves once the API's Redis connection is up: a limiter that cannot reach Redis lets requests through. */
  redisReady(): Promise<void>;
  close(): Promise<void>;
}

/** The real app on the real test database and Redis, with a unique key prefix per suite. */
export function makeHarness(overrides: Partial<NodeJS.ProcessEnv> = {}): Harness {
  const config = parseConfig({ ...process.env, ...overrides });
  const prisma = createPrisma(config.databaseUrl, { max: 5 });
  const redis = createApiRedis(config.redis);
  redis.on('error', () => undefined);
  const logger = createLogger({ level: 'error', json: true, service: 'test', silent: !process.env.TEST_LOG });
  // A key prefix per harness keeps suites' queues apart in the shared test Redis.
  const queuePrefix = `bull-${randomUUID().slice(0, 8)}`;
  const scheduler = new CheckScheduler(config.checkRegions, redis, queuePrefix);
  const guard = createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });
  const escalations = new EscalationScheduler(redis, queuePrefix);
  const deps: ApiDeps = { config, prisma, redis, logger, scheduler, guard, escalations };
  const app = createApp(deps);
  return {
    config,
    prisma,
    redis,
    deps,
    app,
    queuePrefix,
    redisReady: () =>
      redis.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => redis.once('ready', resolve)),
    async close() {
      await scheduler.close().catch(() => undefined);
      await escalations.close().catch(() => undefined);
      await prisma.$disconnect();
      redis.disconnect();
    },
  };
}

export const uniq = (p = 't') => `${p}-${randomUUID().slice(0, 8)}`;

/** A workspace with one org token per role. */
export async function makeWorkspace(prisma: PrismaClient, opts: { plan?: 'free' | 'solo' | 'team' | 'business' } = {}) {
  const ws = await createWorkspace(prisma, { slug: uniq('ws'), name: 'Test workspace', plan: opts.plan ?? 'free' });
  const tokens = {} as Record<'owner' | 'admin' | 'member' | 'viewer', string>;
  for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
    tokens[role] = (await createToken(prisma, { kind: 'org', workspace: ws.id, role })).token;
  }
  return { ws, tokens };
}

export async function makeUser(
  prisma: PrismaClient,
  memberships: Array<{ workspace: string; role: 'owner' | 'admin' | 'member' | 'viewer' }>,
) {
  const user = await createUser(prisma, { email: `${uniq('u')}@example.test` });
  for (const m of memberships) await addMember(prisma, { workspace: m.workspace, email: user.email, role: m.role });
  return user;
}

/** A service's `ctx` as mountRoutes builds it for an org token of `role` in the workspace: tests calling services. */
export function serviceCtx(
  ws: { id: string; slug?: string; name?: string },
  role: ServiceContext['role'],
  extra: Partial<ServiceContext> = {},
): ServiceContext {
  return {
    workspace: { id: ws.id, slug: ws.slug ?? 'x', name: ws.name ?? 'x', plan: 'free' },
    role,
    tokenId: 'test',
    tokenKind: 'org',
    userId: null,
    principal: `test-${role}`,
    actor: { type: 'token', id: 'test', name: `test ${role} token` },
    now: new Date(),
    ...extra,
  };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** An http monitor named `name` created through the API by the workspace's owner: its id and component's. */
export async function createMonitorNamed(h: Harness, w: Awaited<ReturnType<typeof makeWorkspace>>, name: string) {
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .send(makeMonitorInput({ name }));
  if (res.status !== 201) throw new Error(`creating monitor ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.id as string, componentId: res.body.data.componentId as string };
}

/** `n` monitors of a new workspace created through the API by its owner, `input(i)` the i-th's body: the workspace and their ids. */
export async function makeMonitors(h: Harness, n: number, input: (i: number) => Record<string, unknown>) {
  const w = await makeWorkspace(h.prisma);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await request(h.app).post('/api/v1/monitors').set(bearer(w.tokens.owner)).send(input(i));
    if (res.status !== 201) throw new Error(`creating monitor ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(res.body.data.id as string);
  }
  return { ...w, ids };
}

/** An http monitor created through the API, then shown as `status` (as if checks had said so): status page tests. */
export async function monitorShowing(
  h: Harness,
  w: Awaited<ReturnType<typeof makeWorkspace>>,
  name: string,
  status: 'up' | 'degraded' | 'down',
) {
  const monitor = await createMonitorNamed(h, w, name);
  await h.prisma.monitor.update({ where: { id: monitor.id }, data: { status } });
  return monitor;
}

/** A maintenance window in progress for the next hour over `componentIds`, created through the API by the owner. */
export async function maintenanceInProgress(
  h: Harness,
  w: Awaited<ReturnType<typeof makeWorkspace>>,
  componentIds: string[],
) {
  const res = await request(h.app)
    .post('/api/v1/maintenance')
    .set(bearer(w.tokens.owner))
    .send({
      title: 'Planned upgrade',
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      componentIds,
    });
  if (res.status !== 201) throw new Error(`creating maintenance: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string };
}
