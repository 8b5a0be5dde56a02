import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import request from 'supertest';
import { Queue, Worker, type Job } from 'bullmq';
import {
  CHECK_JOB_NAME,
  checkQueueName,
  ConfigError,
  createMetricsRegistry,
  createWorkerRedis,
  DEFAULT_METRICS_PORTS,
  exposeMetrics,
  parseConfig,
  registerQueueMetrics,
  startMetricsServer,
  type MetricsServer,
} from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { createApiMetrics, type ApiMetrics } from '../apps/api/src/metrics/api-metrics.js';
import type { CheckOutcome } from '../apps/worker/src/checks/run-check.js';
import { isFinalFailure, type WorkerMetrics } from '../apps/worker/src/metrics/worker-metrics.js';
import type { checkProcessor } from '../apps/worker/src/processors/check.processor.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import {
  checkOnce as checkOnceVia,
  startSwitchTarget,
  startWorker,
  waitFor,
  stopScheduledChecks,
} from './support/worker-harness.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const DASHBOARD_TOKEN = 'dashboard-token-0123456789abcdef';

/** One sample's value from Prometheus text, matching every given label (other labels ignored). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

/** Every label value in the scrape. */
function labelValues(text: string): string[] {
  return [...text.matchAll(/[a-z_]+="([^"]*)"/g)].map((m) => m[1]!);
}

/** Route labels the API may emit: templates, a router's static mount plus " (unrouted)", or "(unmatched)". */
const BOUNDED_ROUTE = /^((\/[a-z0-9-]+|\/:[a-zA-Z]+)+|(\/[a-z0-9-]+)+ \(unrouted\)|\(unmatched\))$/;

async function scrape(server: MetricsServer, token?: string) {
  const res = await fetch(
    `http://127.0.0.1:${server.port()}/metrics`,
    token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  );
  return { status: res.status, text: await res.text() };
}

describe('API metrics', () => {
  let h: Harness;
  let metrics: ApiMetrics;
  let app: ReturnType<typeof createApp>;
  let server: MetricsServer;
  beforeAll(async () => {
    h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
    metrics = createApiMetrics(h.deps);
    app = createApp({ ...h.deps, metrics });
    server = await startMetricsServer({ registry: metrics.registry, port: 0, host: '127.0.0.1', token: null });
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  it('labels request durations by route template and status, never by path, id or secret', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = await request(app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput());
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const beat = await request(app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ type: 'heartbeat', name: 'Backup', intervalSeconds: 3600 });
    const secret = new URL(beat.body.data.pingUrl as string).pathname.split('/').pop()!;
    for (let i = 0; i < 3; i++)
      expect((await request(app).get(`/api/v1/monitors/${id}`).set(bearer(tokens.viewer))).status).toBe(200);
    // Errors the error middleware answers, after Express has left the route: still the full template.
    expect((await request(app).get(`/api/v1/monitors/${randomUUID()}`).set(bearer(tokens.viewer))).status).toBe(404);
    expect((await request(app).get(`/api/v1/monitors/${id}?x=1`).set(bearer(tokens.viewer))).status).toBe(400);
    expect((await request(app).get(`/ping/${secret}`)).status).toBe(200);
    expect((await request(app).get('/ping/AAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await request(app).get(`/no/such/${secret}`)).status).toBe(404);

    const { status, text } = await scrape(server);
    expect(status).toBe(200);
    const getCount = sample(text, 'statusvane_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/api/v1/monitors/:id',
      status: '200',
    });
    expect(getCount).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'statusvane_http_request_duration_seconds_bucket', { route: '/api/v1/monitors/:id', le: '+Inf' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'statusvane_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/monitors',
        status: '201',
      }),
    ).toBe(2);
    for (const status of ['404', '400'])
      expect(
        sample(text, 'statusvane_http_request_duration_seconds_count', { route: '/api/v1/monitors/:id', status }),
      ).toBe(1);
    expect(
      sample(text, 'statusvane_http_request_duration_seconds_count', { route: '/ping/:secret', status: '200' }),
    ).toBe(1);
    expect(
      sample(text, 'statusvane_http_request_duration_seconds_count', { route: '/ping/:secret', status: '404' }),
    ).toBe(1);
    expect(
      sample(text, 'statusvane_http_request_duration_seconds_count', { route: '(unmatched)', status: '404' }),
    ).toBe(1);

    // Only templates: no id, ping secret or token anywhere, and every route label is a template or "(unmatched)".
    for (const secretish of [id, secret, tokens.owner, tokens.viewer, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAA'])
      expect(text).not.toContain(secretish);
    const routes = [...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]!);
    expect(routes.length).toBeGreaterThan(0);
    for (const r of routes) expect([r, BOUNDED_ROUTE.test(r)]).toEqual([r, true]);
    expect(labelValues(text).some((v) => /[0-9a-f]{8}-[0-9a-f]{4}-/.test(v))).toBe(false);
  });

  it("labels answers given before routing (401, 403, 429) with the operation's template, unknown API paths by scope", async () => {
    const h2 = makeHarness({
      RATE_LIMIT_PER_MINUTE: '2',
      QUEUE_DASHBOARD: 'true',
      QUEUE_DASHBOARD_TOKEN: DASHBOARD_TOKEN,
    });
    try {
      await h2.redisReady();
      const m2 = createApiMetrics(h2.deps);
      const app2 = createApp({ ...h2.deps, metrics: m2 });
      const { tokens } = await makeWorkspace(h2.prisma);
      const other = await makeWorkspace(h2.prisma);
      const id = randomUUID();
      const statuses = [
        (await request(app2).get(`/api/v1/monitors/${id}`)).status,
        (await request(app2).get(`/API/V1/monitors/${id}`)).status,
        (
          await request(app2)
            .get('/api/v1/monitors')
            .set(bearer(tokens.viewer))
            .set('X-Statusvane-Workspace', other.ws.slug)
        ).status,
        (await request(app2).get('/api/v1/monitors').set(bearer(tokens.owner))).status,
        (await request(app2).get('/api/v1/monitors').set(bearer(tokens.owner))).status,
        (await request(app2).get(`/api/v1/monitors/${id}`).set(bearer(tokens.owner))).status,
        (await request(app2).get(`/api/v1/no-such-resource/${id}`).set(bearer(tokens.admin))).status,
        (await request(app2).get(`/no/such/${id}`)).status,
        (await request(app2).get('/admin/queues')).status,
      ];
      expect(statuses).toEqual([401, 401, 403, 200, 200, 429, 404, 404, 401]);

      const text = await m2.registry.metrics();
      const count = (route: string, status: string) =>
        sample(text, 'statusvane_http_request_duration_seconds_count', { route, status });
      // A declared operation's template labels every answer to it, even those given before its route ran.
      expect(count('/api/v1/monitors/:id', '401')).toBe(2);
      expect(count('/api/v1/monitors', '403')).toBe(1);
      expect(count('/api/v1/monitors/:id', '429')).toBe(1);
      expect(count('/api/v1 (unrouted)', '404')).toBe(1);
      expect(count('/api/v1 (unrouted)', '401')).toBeNull();
      expect(count('/api/v1/monitors', '200')).toBe(2);
      expect(count('/admin/queues (unrouted)', '401')).toBe(1);
      // Only the path nothing serves is "(unmatched)".
      expect(count('(unmatched)', '404')).toBe(1);
      const unmatched = text
        .split('\n')
        .filter(
          (l) => l.startsWith('statusvane_http_request_duration_seconds_count{') && l.includes('route="(unmatched)"'),
        );
      expect(unmatched.map((l) => /status="(\d+)"/.exec(l)![1])).toEqual(['404']);
      const routes = [...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]!);
      for (const r of routes) expect([r, BOUNDED_ROUTE.test(r)]).toEqual([r, true]);
      for (const secretish of [id, tokens.owner, other.ws.slug, 'API/V1', 'no-such-resource'])
        expect(text).not.toContain(secretish);
    } finally {
      await h2.close();
    }
  });

  it('reports queue depth, oldest waiting job and schedulers against enabled monitors when scraped', async () => {
    // The harness's queue prefix keeps these apart from other suites; no worker consumes them here.
    const queue = h.deps.scheduler.queues.get('local')!;
    await queue.add(CHECK_JOB_NAME, { monitorId: '00000000-0000-4000-8000-000000000001', region: 'local' }, {
      jobId: `metrics-wait-${Date.now() - 5000}`,
      timestamp: Date.now() - 5000,
    } as never);
    await queue.add(
      CHECK_JOB_NAME,
      { monitorId: '00000000-0000-4000-8000-000000000002', region: 'local' },
      { delay: 60_000 },
    );
    // A scrape within a second of the previous one is answered from that one's read: scrape until this one shows both.
    let { text } = await scrape(server);
    for (const until = Date.now() + 5000; Date.now() < until;) {
      const both = ['waiting', 'delayed'].every(
        (state) => (sample(text, 'statusvane_queue_jobs', { queue: checkQueueName('local'), state }) ?? 0) >= 1,
      );
      if (both) break;
      await new Promise((r) => setTimeout(r, 250));
      ({ text } = await scrape(server));
    }
    expect(sample(text, 'statusvane_queue_metrics_up')).toBe(1);
    expect(
      sample(text, 'statusvane_queue_jobs', { queue: checkQueueName('local'), state: 'waiting' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'statusvane_queue_jobs', { queue: checkQueueName('local'), state: 'delayed' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'statusvane_queue_oldest_waiting_seconds', { queue: checkQueueName('local') })).toBeGreaterThan(
      0,
    );
    // The first test created two enabled monitors through this harness's scheduler: their partitions have a scheduler
    // here (one, should their offsets be the same).
    const partitions = (await h.deps.scheduler.listPartitions()).get('local')!.size;
    expect(partitions).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'statusvane_check_schedulers', { region: 'local' })).toBe(partitions);
    const expected = sample(text, 'statusvane_check_schedulers_expected', { region: 'local' });
    const enabled = sample(text, 'statusvane_enabled_monitors');
    // PostgreSQL is shared with other suites: at least this suite's monitors.
    expect(expected).toBeGreaterThanOrEqual(partitions);
    expect(enabled).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it("counts a promoted scheduler job's wait from its slot, not from its creation (an interval early)", async () => {
    // A real job scheduler as CheckScheduler makes them (every + offset), its first slot ~5 s away; two schedulers on
    // one slot and a worker of concurrency 1 held by the first job: the second is promoted to waiting and stays.
    const every = 10_000;
    const lead = 5000;
    const offset = (Date.now() + lead) % every || 1;
    const queue = new Queue(`metrics-oldest-${randomUUID().slice(0, 8)}`, {
      connection: h.redis,
      prefix: h.queuePrefix,
    });
    const connection = createWorkerRedis(h.config.redis);
    connection.on('error', () => undefined);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const firstStarted = new Promise<void>((r) => (started = r));
    const worker = new Worker(queue.name, async () => (started(), gate), {
      connection,
      prefix: h.queuePrefix,
      concurrency: 1,
    });
    const registry = createMetricsRegistry({ service: 'test', defaultMetrics: false });
    registerQueueMetrics(registry, {
      queues: new Map([['local', queue]]),
      expected: async () => ({ enabledMonitors: 0, schedulersPerRegion: new Map() }),
    });
    try {
      for (const id of ['a', 'b'])
        await queue.upsertJobScheduler(id, { every, offset }, { name: CHECK_JOB_NAME, data: {} });
      await firstStarted;
      const [waiting] = await queue.getJobs(['waiting']);
      expect(waiting?.repeatJobKey).toBeDefined();
      const slot = Number(/:(\d+)$/.exec(waiting!.id!)![1]);
      // What made `timestamp + delay` wrong: created long before its slot, and its delay zeroed by the promotion.
      expect(slot - waiting!.timestamp).toBeGreaterThan(lead - 2000);
      expect(waiting!.delay).toBe(0);
      const t0 = Date.now();
      const text = await registry.metrics();
      const t1 = Date.now();
      const age = sample(text, 'statusvane_queue_oldest_waiting_seconds', { queue: queue.name })!;
      expect(age).toBeGreaterThanOrEqual((t0 - slot) / 1000 - 0.001);
      expect(age).toBeLessThanOrEqual((t1 - slot) / 1000 + 0.001);
      expect(age).toBeLessThan(2);
    } finally {
      for (const id of ['a', 'b']) await queue.removeJobScheduler(id);
      release();
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it('serves /metrics on the public port only with METRICS_TOKEN, and then only with that bearer token', async () => {
    expect((await request(app).get('/metrics')).status).toBe(404);

    const h2 = makeHarness({ METRICS_TOKEN });
    try {
      const m2 = createApiMetrics(h2.deps);
      const app2 = createApp({ ...h2.deps, metrics: m2 });
      const none = await request(app2).get('/metrics');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      expect((await request(app2).get('/metrics').set(bearer('wrong-token-0123456789abcdef'))).status).toBe(401);
      const ok = await request(app2).get('/metrics').set(bearer(METRICS_TOKEN));
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('statusvane_http_request_duration_seconds');

      // The separate listener requires it too.
      const listener = await startMetricsServer({
        registry: m2.registry,
        port: 0,
        host: '127.0.0.1',
        token: METRICS_TOKEN,
      });
      try {
        expect((await scrape(listener)).status).toBe(401);
        expect((await scrape(listener, 'nope-nope-nope-nope-nope')).status).toBe(401);
        expect((await scrape(listener, METRICS_TOKEN)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${listener.port()}/other`)).status).toBe(404);
      } finally {
        await listener.close();
      }
    } finally {
      await h2.close();
    }
  });

  it('validates the metrics settings at start-up', () => {
    const base = {
      DATABASE_URL: 'postgresql://x@localhost/db',
      REDIS_URL: 'redis://localhost:6379',
      DATA_DIR: h.config.dataDir,
    };
    expect(parseConfig(base).metrics).toEqual({ port: null, host: '127.0.0.1', token: null });
    expect(parseConfig({ ...base, METRICS_PORT: '0', METRICS_HOST: '0.0.0.0', METRICS_TOKEN }).metrics).toEqual({
      port: 0,
      host: '0.0.0.0',
      token: METRICS_TOKEN,
    });
    expect(() => parseConfig({ ...base, METRICS_PORT: '70000' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

/** A logger that keeps what it was told (exposeMetrics only logs). */
function recordingLogger() {
  const lines: Array<{ level: 'info' | 'warn' | 'error'; msg: string; meta?: object }> = [];
  const at = (level: 'info' | 'warn' | 'error') => (msg: string, meta?: object) => lines.push({ level, msg, meta });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const listeningServers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

describe('metrics listener (exposeMetrics)', () => {
  const base = { DATABASE_URL: 'postgresql://x@localhost/db', REDIS_URL: 'redis://localhost:6379', DATA_DIR: '.data' };
  const registry = createMetricsRegistry({ service: 'test', defaultMetrics: false });

  it('gives the API and the worker different default ports, and binds the default when METRICS_PORT is unset', async () => {
    expect(DEFAULT_METRICS_PORTS).toEqual({ api: 9464, worker: 9465 });
    // The fixed defaults may be in use on a shared machine: the same code path with a free port as the default.
    const defaultPort = await freePort();
    const { logger, lines } = recordingLogger();
    const m = await exposeMetrics({ registry, config: parseConfig(base).metrics, defaultPort, logger });
    try {
      expect(m.port).toBe(defaultPort);
      const res = await fetch(`http://127.0.0.1:${defaultPort}/metrics`);
      expect(res.status).toBe(200);
      expect(lines).toEqual([
        { level: 'info', msg: `metrics on http://127.0.0.1:${defaultPort}/metrics`, meta: undefined },
      ]);
    } finally {
      await m.close();
    }
  });

  it('binds to loopback by default, so the metrics are not reachable from other hosts', async () => {
    const { logger, lines } = recordingLogger();
    const m = await exposeMetrics({
      registry,
      config: parseConfig({ ...base, METRICS_PORT: String(await freePort()) }).metrics,
      defaultPort: 1,
      logger,
    });
    try {
      expect(m.address).toBe('127.0.0.1');
      expect(lines.filter((l) => l.level !== 'info')).toEqual([]);
    } finally {
      await m.close();
    }
  });

  it('starts no listener with METRICS_PORT=0', async () => {
    const defaultPort = await freePort();
    await new Promise((r) => setImmediate(r));
    const before = listeningServers();
    const { logger, lines } = recordingLogger();
    const m = await exposeMetrics({
      registry,
      config: parseConfig({ ...base, METRICS_PORT: '0' }).metrics,
      defaultPort,
      logger,
    });
    expect(m).toMatchObject({ port: null, address: null });
    expect(listeningServers()).toBe(before);
    expect(lines).toEqual([]);
    await m.close();
  });

  it('runs on without metrics when the port is taken (a second worker on the host), saying what to change', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { logger, lines } = recordingLogger();
      const m = await exposeMetrics({
        registry,
        config: { port: null, host: '127.0.0.1', token: null },
        defaultPort: port,
        logger,
      });
      expect(m).toMatchObject({ port: null, address: null });
      expect(lines).toHaveLength(1);
      expect(lines[0]!.level).toBe('error');
      expect(lines[0]!.msg).toMatch(
        new RegExp(`metrics port ${port} is taken.*its own METRICS_PORT.*running without metrics`),
      );
      expect(lines[0]!.meta).toMatchObject({ host: '127.0.0.1', port });
      await m.close();
      // The process, and whatever held the port, carry on.
      expect(taken.listening).toBe(true);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });

  it('warns once at start-up when bound off loopback without a token, and not with one', async () => {
    const open = recordingLogger();
    const m1 = await exposeMetrics({
      registry,
      config: { port: await freePort(), host: '0.0.0.0', token: null },
      defaultPort: 1,
      logger: open.logger,
    });
    try {
      const warnings = open.lines.filter((l) => l.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/without a token on a non-loopback address: set METRICS_TOKEN/);
      expect(warnings[0]!.meta).toMatchObject({ host: '0.0.0.0' });
    } finally {
      await m1.close();
    }
    const tokened = recordingLogger();
    const m2 = await exposeMetrics({
      registry,
      config: { port: await freePort(), host: '0.0.0.0', token: METRICS_TOKEN },
      defaultPort: 1,
      logger: tokened.logger,
    });
    try {
      expect(tokened.lines.map((l) => l.level)).toEqual(['info']);
      expect(tokened.lines[0]!.msg).toMatch(/bearer token required/);
    } finally {
      await m2.close();
    }
  });
});

describe('worker metrics', () => {
  let h: Harness;
  let target: Awaited<ReturnType<typeof startSwitchTarget>>;
  let w: ReturnType<typeof startWorker>;
  let metrics: WorkerMetrics;
  let processor: ReturnType<typeof checkProcessor>;
  let completed: Array<{ job: Job; outcome: CheckOutcome }>;
  const failed: Job[] = [];
  beforeAll(async () => {
    h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
    target = await startSwitchTarget();
    // As apps/worker/src/main.ts runs it, with a registry of its own.
    w = startWorker(h);
    ({ metrics } = w.runtime);
    ({ processor, completed } = w);
    w.worker.on('failed', (job) => job && failed.push(job));
  });
  afterAll(async () => {
    await w.close();
    await target.close();
    await h.close();
  });

  const checkOnce = (monitorId: string) => checkOnceVia(h, completed, monitorId);

  it('counts checks by type, region and result, their duration and lateness, and incidents opened', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    target.setStatus(200);
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      // Only the checks the test runs: no scheduled slot within the test (an hour's interval) and no fast-confirmation
      // re-check (confirmAfterSeconds 0), either of which would add a lateness sample under a slow run.
      .send(makeMonitorInput({ target: target.url, openThreshold: 2, confirmAfterSeconds: 0, intervalSeconds: 3600 }));
    const monitorId = res.body.data.id as string;
    await waitFor(async () => completed.some((c) => c.job.data.monitorId === monitorId), 10_000, 'the first check');
    await checkOnce(monitorId);
    target.setStatus(503);
    await checkOnce(monitorId);
    await checkOnce(monitorId);

    const server = await startMetricsServer({ registry: metrics.registry, port: 0, host: '127.0.0.1', token: null });
    try {
      const { text } = await scrape(server);
      expect(sample(text, 'statusvane_checks_total', { type: 'http', region: 'local', result: 'up' })).toBe(2);
      expect(sample(text, 'statusvane_checks_total', { type: 'http', region: 'local', result: 'down' })).toBe(2);
      expect(sample(text, 'statusvane_check_duration_seconds_count', { type: 'http', region: 'local' })).toBe(4);
      expect(sample(text, 'statusvane_check_lateness_seconds_count', { region: 'local' })).toBe(4);
      // Each of them ran at once: started within 2.5 s of its slot (its enqueue), never before it.
      expect(sample(text, 'statusvane_check_lateness_seconds_bucket', { region: 'local', le: '2.5' })).toBe(4);
      const onTimeSum = sample(text, 'statusvane_check_lateness_seconds_sum', { region: 'local' })!;
      expect(onTimeSum).toBeGreaterThanOrEqual(0);
      expect(onTimeSum).toBeLessThan(4 * 2.5);
      expect(sample(text, 'statusvane_incidents_opened_total', { region: 'local' })).toBe(1);
      expect(sample(text, 'statusvane_event_loop_delay_seconds', { quantile: '0.99' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(text).not.toContain(monitorId);

      // A job whose slot was 6 s ago is observed as 6 s late or more: counted above the 5 s bucket, within 10 s.
      const before = completed.length;
      const queue = new Queue(checkQueueName('local'), { connection: h.redis, prefix: h.queuePrefix });
      try {
        await queue.add(CHECK_JOB_NAME, { monitorId, region: 'local' }, {
          jobId: `late-${monitorId}`,
          timestamp: Date.now() - 6000,
        } as never);
      } finally {
        await queue.close();
      }
      await waitFor(
        async () => completed.slice(before).some((c) => c.job.id === `late-${monitorId}`),
        10_000,
        'the late check',
      );
      const late = (await scrape(server)).text;
      expect(sample(late, 'statusvane_check_lateness_seconds_count', { region: 'local' })).toBe(5);
      expect(sample(late, 'statusvane_check_lateness_seconds_bucket', { region: 'local', le: '5' })).toBe(4);
      expect(sample(late, 'statusvane_check_lateness_seconds_bucket', { region: 'local', le: '10' })).toBe(5);
      const lateSeconds = sample(late, 'statusvane_check_lateness_seconds_sum', { region: 'local' })! - onTimeSum;
      expect(lateSeconds).toBeGreaterThanOrEqual(6);
      expect(lateSeconds).toBeLessThan(10);
    } finally {
      await server.close();
    }
  });

  it("labels a check that fails before probing (config_error) with its monitor's type, not as a heartbeat", async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    target.setStatus(200);
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send(makeMonitorInput({ target: target.url, headers: { 'X-Key': 'v' } }));
    const monitorId = res.body.data.id as string;
    // Only the job below may run: its first check done, its schedule removed.
    await waitFor(async () => completed.some((c) => c.job.data.monitorId === monitorId), 10_000, 'the first check');
    await stopScheduledChecks(h, monitorId);
    // Its headers name a key no process has: the check stores config_error without calling the probe.
    await h.prisma.monitor.update({ where: { id: monitorId }, data: { headersEnc: 'v1:ffffffffffff:AAAA' } });
    const server = await startMetricsServer({ registry: metrics.registry, port: 0, host: '127.0.0.1', token: null });
    try {
      const count = async (type: string) =>
        sample((await scrape(server)).text, 'statusvane_checks_total', { type, region: 'local', result: 'down' }) ?? 0;
      const [http0, hb0] = [await count('http'), await count('heartbeat')];
      const job = {
        data: { monitorId, region: 'local' },
        opts: {},
        id: `cfg-${monitorId}`,
        timestamp: Date.now(),
        attemptsMade: 0,
      } as unknown as Job;
      expect(await processor(job)).toMatchObject({
        result: { outcome: 'down', reason: expect.stringMatching(/^config_error: /) },
      });
      expect([await count('http'), await count('heartbeat')]).toEqual([http0 + 1, hb0]);
    } finally {
      await server.close();
    }
  });

  it('counts a slot processed twice as a duplicate, and a job out of retries as a lost result', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    target.setStatus(200);
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send(makeMonitorInput({ target: target.url }));
    const monitorId = res.body.data.id as string;
    const job = {
      data: { monitorId, region: 'local' },
      opts: { prevMillis: 1_700_000_000_000 },
      timestamp: Date.now(),
      attemptsMade: 0,
    } as unknown as Job;
    await processor(job);
    await processor(job);
    expect(await metrics.duplicateResults.get()).toMatchObject({ values: [{ value: 1, labels: { region: 'local' } }] });

    // A payload the worker refuses fails every attempt; with one attempt, the first failure is final.
    const queue = new Queue(checkQueueName('local'), { connection: h.redis, prefix: h.queuePrefix });
    try {
      await queue.add(CHECK_JOB_NAME, { monitorId: 'not-a-uuid', region: 'local' }, { attempts: 1 });
      await waitFor(async () => failed.length >= 1, 10_000, 'a failed job');
    } finally {
      await queue.close();
    }
    expect((await metrics.resultsLost.get()).values[0]?.value).toBe(1);
    expect(isFinalFailure({ attemptsMade: 1, opts: { attempts: 4 }, finishedOn: undefined } as never)).toBe(false);
    expect(isFinalFailure({ attemptsMade: 4, opts: { attempts: 4 }, finishedOn: 1 } as never)).toBe(true);
  });
});

describe('queue dashboard', () => {
  it('refuses to start when enabled without a token', () => {
    const base = {
      DATABASE_URL: 'postgresql://x@localhost/db',
      REDIS_URL: 'redis://localhost:6379',
      DATA_DIR: '.data',
    };
    expect(() => parseConfig({ ...base, QUEUE_DASHBOARD: 'true' })).toThrow(/QUEUE_DASHBOARD_TOKEN/);
    expect(parseConfig({ ...base, QUEUE_DASHBOARD_TOKEN: DASHBOARD_TOKEN }).queueDashboard).toBeNull();
  });

  it('is not there when off', async () => {
    const h = makeHarness();
    try {
      const res = await request(h.app).get('/admin/queues');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    } finally {
      await h.close();
    }
  });

  it('answers 401 without the token, and the dashboard with it (bearer or Basic password)', async () => {
    const h = makeHarness({ QUEUE_DASHBOARD: 'true', QUEUE_DASHBOARD_TOKEN: DASHBOARD_TOKEN });
    try {
      const none = await request(h.app).get('/admin/queues');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Basic/);
      expect(none.body.error.code).toBe('unauthorized');
      expect(
        (await request(h.app).get('/admin/queues/api/queues').set(bearer('wrong-token-0123456789abcdef'))).status,
      ).toBe(401);
      expect((await request(h.app).get('/admin/queues').auth('ops', 'wrong-password')).status).toBe(401);

      const page = await request(h.app).get('/admin/queues').set(bearer(DASHBOARD_TOKEN));
      expect(page.status).toBe(200);
      expect(page.text).toContain('<html');
      expect((await request(h.app).get('/admin/queues').auth('ops', DASHBOARD_TOKEN)).status).toBe(200);
      const api = await request(h.app).get('/admin/queues/api/queues').set(bearer(DASHBOARD_TOKEN));
      expect(api.status).toBe(200);
      expect(JSON.stringify(api.body)).toContain(checkQueueName('local'));
    } finally {
      await h.close();
    }
  });
});
