import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createSsrfGuard, decryptSecret, encodeCursor, endOfLog, verifyWebhookSignature } from '@statusvane/shared';
import { deliverWebhookEvent } from '../apps/worker/src/webhooks/deliver.js';
import { dispatchWebhooks } from '../apps/worker/src/webhooks/dispatch.js';
import { startWebhookListener, WEBHOOK_LISTENER_NAME, type ListenTiming } from '../apps/worker/src/webhooks/listen.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { startRuntime } from './support/worker-harness.js';

/** A webhook receiver on loopback: records every POST; answers `status(path, n)` (n counts that path's posts). */
async function startReceiver(status: (path: string, n: number) => number = () => 200) {
  const got: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      got.push({ path, headers: req.headers, body });
      res.writeHead(status(path, n)).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { got, base, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const until = async <T>(fn: () => Promise<T | null | undefined | false>, ms: number, what: string): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** The README's snippet, run as a user would run it: an ES module in a plain `node`. */
function readmeVerify(secret: string, header: string, body: string): boolean {
  const readme = readFileSync('README.md', 'utf8');
  const block = /<!-- verify-signature:start -->\s*```js\n([\s\S]*?)```\s*<!-- verify-signature:end -->/.exec(readme);
  if (!block) throw new Error('the README has no verify-signature snippet');
  const harness = `\nconst [secret, header, body] = JSON.parse(process.argv[1]);\nconsole.log(JSON.stringify(verifyStatusvaneSignature(secret, header, body)));\n`;
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', block[1]! + harness, JSON.stringify([secret, header, body])],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as boolean;
}

let h: Harness;
let strict: Harness;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let worker: ReturnType<typeof startRuntime>;

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.1/32', JOB_LOCK_MS: '5000' });
  strict = makeHarness({ ALLOWED_TARGET_CIDRS: '' });
  // /flaky/<n> fails n times with 503 before a 200, /missing/<n> with 404.
  rx = await startReceiver((path, n) => {
    const flaky = /^\/flaky\/(\d+)/.exec(path);
    if (flaky) return n <= Number(flaky[1]) ? 503 : 200;
    const missing = /^\/missing\/(\d+)/.exec(path);
    if (missing) return n <= Number(missing[1]) ? 404 : 200;
    return 200;
  });
  // Webhooks alone: no check may change a monitor's status (an event) behind the tests' backs. The sweep an hour
  // apart: every delivery of this suite is dispatched on commit (webhooks/listen.ts), the replay's too.
  worker = startRuntime(h, {
    parts: { checks: false, escalations: false, webhooks: true },
    timing: { webhookRetryBaseMs: 100, webhookDispatchMs: 3600_000 },
  });
});
afterAll(async () => {
  await worker?.close();
  await rx?.close();
  await strict?.close();
  await h?.close();
});

const createHook = async (token: string, body: Record<string, unknown>, harness = h) =>
  request(harness.app).post('/api/v1/webhooks').set(bearer(token)).send(body);

describe('/webhooks', () => {
  it('creates (secret shown once), lists, reads, updates and deletes, for managers only', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    expect((await createHook(tokens.member, { url: `${rx.base}/a` })).status).toBe(403);
    const created = await createHook(tokens.admin, {
      url: `${rx.base}/a?token=s3cret`,
      types: ['incident.opened'],
      description: 'bot',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      url: `${rx.base}/…`,
      types: ['incident.opened'],
      description: 'bot',
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    const id = created.body.data.id as string;
    // Stored encrypted: neither the URL's token nor the secret is in the row in clear.
    const row = await h.prisma.webhook.findUniqueOrThrow({ where: { id } });
    const stored = [row.urlEnc, row.urlDisplay, row.secretEnc, row.description].join(' ');
    expect(stored).not.toContain('s3cret');
    expect(stored).not.toContain(created.body.data.secret);
    expect(decryptSecret(row.secretEnc, null, h.config.encryption)).toBe(created.body.data.secret);

    const got = await request(h.app).get(`/api/v1/webhooks/${id}`).set(bearer(tokens.owner));
    expect([got.status, got.headers.etag]).toEqual([200, '"1"']);
    expect(got.body.data).not.toHaveProperty('secret');
    expect((await request(h.app).get(`/api/v1/webhooks/${id}`).set(bearer(tokens.viewer))).status).toBe(403);
    const list = await request(h.app).get('/api/v1/webhooks').set(bearer(tokens.admin));
    expect(list.body).toMatchObject({ data: [{ id }], pagination: { total: 1 } });

    const patched = await request(h.app)
      .patch(`/api/v1/webhooks/${id}`)
      .set(bearer(tokens.admin))
      .send({ types: [], description: 'all' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ types: [], description: 'all', url: `${rx.base}/…`, version: 2 });
    expect(patched.headers.etag).toBe('"2"');

    for (const bad of [
      { url: `${rx.base}/a`, extra: 1 },
      { url: 'ftp://example.com/x' },
      { url: 'not a url' },
      { url: rx.base.replace('http://', 'http://user:pass@') },
      { url: `${rx.base}/a`, types: ['incident.exploded'] },
      { url: `${rx.base}/a`, types: ['incident.opened', 'incident.opened'] },
    ]) {
      expect([bad, (await createHook(tokens.admin, bad)).status]).toEqual([bad, 400]);
    }
    expect((await request(h.app).delete(`/api/v1/webhooks/${id}`).set(bearer(tokens.admin))).status).toBe(204);
    expect((await request(h.app).get(`/api/v1/webhooks/${id}`).set(bearer(tokens.admin))).status).toBe(404);
  });

  it('refuses a private URL at write time, and a URL that turned private at send time', async () => {
    const { tokens } = await makeWorkspace(strict.prisma);
    const refused = await createHook(tokens.admin, { url: `${rx.base}/private` }, strict);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.issues[0].path).toBe('url');
    expect((await createHook(tokens.admin, { url: 'http://169.254.169.254/latest' }, h)).status).toBe(400);

    // Written while loopback was allowed; sent by a worker whose guard refuses it.
    const { tokens: t2 } = await makeWorkspace(h.prisma);
    const hook = (await createHook(t2.admin, { url: `${rx.base}/later-private` })).body.data;
    await worker.runtime.webhookWorker!.pause();
    try {
      await request(h.app).post('/api/v1/monitors').set(bearer(t2.member)).send(makeMonitorInput());
      const delivery = await until(
        async () => {
          await dispatchWebhooks({ prisma: h.prisma, queue: worker.runtime.webhookQueue!, logger: h.deps.logger });
          return (await h.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id } }))[0];
        },
        10_000,
        'the delivery',
      );
      const result = await deliverWebhookEvent(
        { prisma: h.prisma, keyring: h.config.encryption, guard: createSsrfGuard({ allowedCidrs: [] }) },
        delivery.id,
      );
      expect(result).toEqual({ outcome: 'failed', reason: 'ssrf_blocked' });
    } finally {
      await worker.runtime.webhookWorker!.resume();
    }
    expect(rx.got.filter((r) => r.path === '/later-private')).toEqual([]);
  });

  it('delivers signed CloudEvents through BullMQ, retries with backoff, keeps the history, and replays', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const start = (await request(h.app).get('/api/v1/events').set(bearer(tokens.viewer))).body.nextCursor;
    const hook = (await createHook(tokens.admin, { url: `${rx.base}/flaky/2`, types: ['monitor.created'] })).body.data;
    const monitors: string[] = [];
    for (const name of ['one', 'two']) {
      const res = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.member))
        .send(makeMonitorInput({ name }));
      monitors.push(res.body.data.id);
    }
    const mine = () => rx.got.filter((r) => r.path === '/flaky/2');
    // Two 503s, then a 200: both events arrive (the first retried twice with backoff).
    await until(async () => mine().filter((_, i) => i >= 2).length >= 2, 20_000, 'both events');
    const ok = mine().slice(2);
    const events = ok.map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.subject).sort()).toEqual(monitors.map((m) => `monitors/${m}`).sort());
    expect(events[0]).toMatchObject({ specversion: '1.0', type: 'com.statusvane.monitor.created' });
    for (const r of mine()) {
      expect(r.headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
      const sig = String(r.headers['statusvane-signature']);
      expect(verifyWebhookSignature(hook.secret, sig, r.body)).toBe(true);
      expect(verifyWebhookSignature(hook.secret, sig, `${r.body} `)).toBe(false);
    }
    // The README's snippet accepts a real delivery and refuses a forged one.
    const sample = ok[0]!;
    expect(readmeVerify(hook.secret, String(sample.headers['statusvane-signature']), sample.body)).toBe(true);
    expect(readmeVerify(hook.secret, String(sample.headers['statusvane-signature']), `${sample.body}x`)).toBe(false);
    expect(readmeVerify('whsec_other', String(sample.headers['statusvane-signature']), sample.body)).toBe(false);

    const history = await until(
      async () => {
        const res = await request(h.app).get(`/api/v1/webhooks/${hook.id}/deliveries`).set(bearer(tokens.admin));
        return res.body.data.every((d: { status: string }) => d.status === 'sent') ? res.body : null;
      },
      5000,
      'the history to say sent',
    );
    expect(history.pagination.total).toBe(2);
    // The same delivery id on every attempt of one event.
    const byDelivery = new Map<string, Set<string>>();
    for (const r of mine()) {
      const id = String(r.headers['statusvane-delivery']);
      byDelivery.set(id, (byDelivery.get(id) ?? new Set()).add(JSON.parse(r.body).id));
    }
    expect([...byDelivery.values()].every((ids) => ids.size === 1)).toBe(true);
    const attempts = history.data.map((d: { attempts: number }) => d.attempts).sort();
    expect(attempts.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(history.data[0]).toMatchObject({
      status: 'sent',
      responseStatus: 200,
      replay: false,
      nextAttemptAt: null,
      eventType: 'monitor.created',
    });

    // Replay from before both: they come again, with the same event ids, as deliveries marked `replay`.
    const before = mine().length;
    const bad = await request(h.app)
      .post(`/api/v1/webhooks/${hook.id}/replay`)
      .set(bearer(tokens.admin))
      .send({ after: 'x' });
    expect(bad.status).toBe(400);
    // A well-formed cursor beyond the end of the log would silence the webhook: 400 naming `after`, nothing moved.
    const beyond = encodeCursor({ txid: (await endOfLog(h.prisma)).txid + 1_000_000_000n, seq: 0n });
    for (const after of [beyond, 'f'.repeat(8) + '0'.repeat(24)]) {
      const past = await request(h.app)
        .post(`/api/v1/webhooks/${hook.id}/replay`)
        .set(bearer(tokens.admin))
        .send({ after });
      expect([past.status, past.body.error?.details?.issues?.map((i: { path: string }) => i.path)]).toEqual([
        400,
        ['after'],
      ]);
    }
    expect((await request(h.app).get(`/api/v1/webhooks/${hook.id}`).set(bearer(tokens.admin))).body.data.version).toBe(
      hook.version,
    );
    const replay = await request(h.app)
      .post(`/api/v1/webhooks/${hook.id}/replay`)
      .set(bearer(tokens.admin))
      .send({ after: start });
    expect(replay.status).toBe(200);
    await until(async () => mine().length >= before + 2, 10_000, 'the replayed events');
    const again = mine()
      .slice(before)
      .map((r) => JSON.parse(r.body).id)
      .sort();
    expect(again).toEqual(events.map((e) => e.id).sort());
    const after = await request(h.app)
      .get(`/api/v1/webhooks/${hook.id}/deliveries?perPage=10`)
      .set(bearer(tokens.admin));
    expect(after.body.data.filter((d: { replay: boolean }) => d.replay)).toHaveLength(2);
  });

  it("delivers monitor.created and monitor.updated without a heartbeat's ping secret", async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const hook = (
      await createHook(tokens.admin, { url: `${rx.base}/heartbeats`, types: ['monitor.created', 'monitor.updated'] })
    ).body.data;
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send({ type: 'heartbeat', name: 'nightly', intervalSeconds: 3600 });
    expect(created.status).toBe(201);
    const pingSecret = new URL(created.body.data.pingUrl).pathname.split('/').pop()!;
    const updated = await request(h.app)
      .patch(`/api/v1/monitors/${created.body.data.id}`)
      .set(bearer(tokens.member))
      .send({ graceSeconds: 120 });
    expect(updated.status).toBe(200);
    const mine = () => rx.got.filter((r) => r.path === '/heartbeats');
    await until(async () => mine().length >= 2, 10_000, 'both deliveries');
    const delivered = mine().map((r) => JSON.parse(r.body));
    expect(delivered.map((e) => e.type).sort()).toEqual([
      'com.statusvane.monitor.created',
      'com.statusvane.monitor.updated',
    ]);
    for (const r of mine()) {
      expect(r.body).not.toContain(pingSecret);
      expect(verifyWebhookSignature(hook.secret, String(r.headers['statusvane-signature']), r.body)).toBe(true);
    }
    const byType = new Map(delivered.map((e) => [e.type as string, e.data.monitor]));
    expect(byType.get('com.statusvane.monitor.created')).toEqual({ ...created.body.data, pingUrl: '<redacted>' });
    expect(byType.get('com.statusvane.monitor.updated')).toEqual({ ...updated.body.data, pingUrl: '<redacted>' });
  });

  it('delivers a status change recorded by the trigger with the data GET /events shows', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const hook = (await createHook(tokens.admin, { url: `${rx.base}/status`, types: ['monitor.status_changed'] })).body
      .data;
    const m = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send(makeMonitorInput({ name: 'status' }));
    // Any write of the status records it (the worker's group commit does the same in one UPDATE for many monitors).
    await h.prisma.monitor.update({
      where: { id: m.body.data.id },
      data: { status: 'down', lastCheckedAt: new Date('2026-01-02T03:04:05.006Z') },
    });
    const got = await until(
      async () => rx.got.find((r) => r.path === '/status' && JSON.parse(r.body).source === `/workspaces/${ws.id}`),
      10_000,
      'the status change',
    );
    const delivered = JSON.parse(got.body);
    expect(delivered.data).toEqual({
      monitor: { id: m.body.data.id, name: 'status', type: 'http' },
      previousStatus: 'pending',
      status: 'down',
      checkedAt: '2026-01-02T03:04:05.006Z',
    });
    const logged = await request(h.app).get('/api/v1/events?types=monitor.status_changed').set(bearer(tokens.viewer));
    expect(logged.body.data).toEqual([delivered]);
    expect(verifyWebhookSignature(hook.secret, String(got.headers['statusvane-signature']), got.body)).toBe(true);
    // Its id (derived from its position: the trigger stores none) is a UUID, the same in the delivery history.
    expect(delivered.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const history = await request(h.app).get(`/api/v1/webhooks/${hook.id}/deliveries`).set(bearer(tokens.admin));
    expect(history.status).toBe(200);
    expect(history.body.data.map((d: { eventId: string }) => d.eventId)).toEqual([delivered.id]);
  });

  it('retries every non-2xx, a 404 too, and gives up 24 hours after the event', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    // A receiver half-deployed answers 404 twice, then takes the event.
    const hook = (await createHook(tokens.admin, { url: `${rx.base}/missing/2`, types: ['monitor.created'] })).body
      .data;
    const m = await request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(makeMonitorInput());
    const history = await until(
      async () => {
        const res = await request(h.app).get(`/api/v1/webhooks/${hook.id}/deliveries`).set(bearer(tokens.admin));
        return ['sent', 'failed'].includes(res.body.data[0]?.status) ? res.body.data : null;
      },
      20_000,
      'the delivery to end',
    );
    expect(history[0]).toMatchObject({ status: 'sent', attempts: 3, responseStatus: 200, reason: null });
    const got = rx.got.filter((r) => r.path === '/missing/2');
    expect(got).toHaveLength(3);
    expect(JSON.parse(got[2]!.body)).toMatchObject({ subject: `monitors/${m.body.data.id}` });

    // A 503 to a delivery 24 hours old is not retried again.
    const flaky = (await createHook(tokens.admin, { url: `${rx.base}/flaky/1000`, types: ['monitor.deleted'] })).body
      .data;
    await worker.runtime.webhookWorker!.pause();
    try {
      const m = await request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(makeMonitorInput());
      await request(h.app).delete(`/api/v1/monitors/${m.body.data.id}`).set(bearer(tokens.admin));
      const d = await until(
        async () => {
          await dispatchWebhooks({ prisma: h.prisma, queue: worker.runtime.webhookQueue!, logger: h.deps.logger });
          return (await h.prisma.webhookDelivery.findMany({ where: { webhookId: flaky.id } }))[0];
        },
        10_000,
        'the delivery',
      );
      const deps = {
        prisma: h.prisma,
        keyring: h.config.encryption,
        guard: createSsrfGuard({ allowedCidrs: h.config.allowedTargetCidrs }),
      };
      expect(await deliverWebhookEvent(deps, d.id)).toMatchObject({ outcome: 'retry', reason: 'http_503' });
      const dayLater = new Date(d.createdAt.getTime() + 24 * 3600_000 - 5000);
      expect(await deliverWebhookEvent({ ...deps, now: () => dayLater }, d.id)).toEqual({
        outcome: 'failed',
        reason: 'http_503',
      });
      expect(await h.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: d.id } })).toMatchObject({
        status: 'failed',
        attempts: 2,
        responseStatus: 503,
      });
    } finally {
      await worker.runtime.webhookWorker!.resume();
    }
  });

  it('leaves a webhook with nothing new alone: no transaction, no rewrite of its row, until an event comes', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const hook = (await createHook(tokens.admin, { url: `${rx.base}/quiet`, types: ['monitor.created'] })).body.data;
    const row = async () =>
      (
        await h.prisma.$queryRaw<Array<{ xmin: string; cursorTxid: bigint; cursorSeq: bigint }>>`
          SELECT xmin::text, "cursorTxid", "cursorSeq" FROM webhooks WHERE id = ${hook.id}::uuid`
      )[0]!;
    const before = await row();
    // Other workspaces' writes move the log's fence; dispatch runs (here and in the worker) find nothing of its own.
    for (let i = 0; i < 3; i++) {
      await makeWorkspace(h.prisma);
      await dispatchWebhooks({ prisma: h.prisma, queue: worker.runtime.webhookQueue!, logger: h.deps.logger });
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(await row()).toEqual(before);

    // An event of its workspace: dispatched, the cursor moved past it.
    await request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(makeMonitorInput());
    const moved = await until(
      async () => {
        await dispatchWebhooks({ prisma: h.prisma, queue: worker.runtime.webhookQueue!, logger: h.deps.logger });
        const r = await row();
        return r.cursorTxid > before.cursorTxid ? r : null;
      },
      10_000,
      'the cursor to move',
    );
    expect(moved.xmin).not.toBe(before.xmin);
    await until(async () => rx.got.find((r) => r.path === '/quiet'), 10_000, 'the monitor.created delivery');
    expect(await h.prisma.webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(1);
  });
});

describe('dispatch on commit', () => {
  const client = async () => {
    const c = new pg.Client({ connectionString: h.config.databaseUrl });
    await c.connect();
    return c;
  };

  it('notifies for the events of a workspace with a webhook only, once a transaction, on commit', async () => {
    const quiet = await makeWorkspace(h.prisma);
    const hooked = await makeWorkspace(h.prisma);
    await createHook(hooked.tokens.admin, { url: `${rx.base}/notified`, types: ['monitor.created'] });
    const listener = await client();
    const heard: number[] = [];
    listener.on('notification', (n) => n.channel === 'statusvane_webhook_events' && heard.push(Date.now()));
    await listener.query('LISTEN statusvane_webhook_events');
    const settle = () => new Promise((r) => setTimeout(r, 300));
    try {
      await request(h.app).post('/api/v1/monitors').set(bearer(quiet.tokens.member)).send(makeMonitorInput());
      await settle();
      expect(heard).toHaveLength(0);
      await request(h.app).post('/api/v1/monitors').set(bearer(hooked.tokens.member)).send(makeMonitorInput());
      await settle();
      expect(heard).toHaveLength(1);
      // Two events in one transaction: one notification, after the commit.
      const writer = await client();
      try {
        await writer.query('BEGIN');
        for (let i = 0; i < 2; i++)
          await writer.query(
            `INSERT INTO events ("workspaceId", type, subject, data) VALUES ($1, 'monitor.updated', 'monitors/x', '{}')`,
            [hooked.ws.id],
          );
        await settle();
        expect(heard).toHaveLength(1);
        await writer.query('COMMIT');
      } finally {
        await writer.end();
      }
      await settle();
      expect(heard).toHaveLength(2);
    } finally {
      await listener.end();
    }
  });

  /**
   * Runs `body` against a listener with `timing` whose dispatch takes `runMs` and notes when each run began, once it
   * listens and its first run (on LISTEN) began; `notify` sends one notification on a connection of its own. Run n
   * (from 0) answers `answers[n]`: `fail` throws, `held` finds events held; the others find nothing held.
   */
  const withTimedListener = async (
    { runMs, answers = [], ...timing }: ListenTiming & { runMs: number; answers?: Array<'fail' | 'held'> },
    body: (t: { runs: number[]; notify: () => Promise<unknown> }) => Promise<void>,
  ) => {
    const runs: number[] = [];
    const listener = startWebhookListener({
      databaseUrl: h.config.databaseUrl,
      logger: h.deps.logger,
      timing,
      dispatch: async () => {
        const answer = answers[runs.length];
        runs.push(Date.now());
        await new Promise((r) => setTimeout(r, runMs));
        if (answer === 'fail') throw new Error('dispatch failed (test)');
        return { held: answer === 'held' };
      },
    });
    const notifier = await client();
    try {
      await until(async () => listener.listening && runs.length === 1, 5000, 'the listener and its first run');
      await body({ runs, notify: () => notifier.query("SELECT pg_notify('statusvane_webhook_events', '')") });
    } finally {
      await notifier.end();
      await listener.close();
    }
  };

  it('runs once for a burst of notifications, at most every minGapMs, and after the last one', () =>
    withTimedListener({ minGapMs: 150, runMs: 20 }, async ({ runs, notify }) => {
      const start = Date.now();
      let last = 0;
      for (let i = 0; i < 40; i++) {
        last = Date.now();
        await notify();
      }
      await new Promise((r) => setTimeout(r, 400));
      const burst = runs.slice(1);
      // Not one run per notification, and never two closer than the gap...
      expect(burst.length).toBeGreaterThanOrEqual(1);
      expect(burst.length).toBeLessThanOrEqual(Math.ceil((last - start) / 150) + 2);
      for (let i = 1; i < burst.length; i++) expect(burst[i]! - burst[i - 1]!).toBeGreaterThanOrEqual(149);
      // ...and the last notification is never dropped: a run starts after it was sent.
      expect(burst.at(-1)!).toBeGreaterThanOrEqual(last);
    }));

  it('a notification just after a run ends waits for the gap since that run began', () =>
    // The first run (on LISTEN) is over at once; a notification then is inside its gap.
    withTimedListener({ minGapMs: 1000, runMs: 0 }, async ({ runs, notify }) => {
      const notified = Date.now();
      await notify();
      await until(async () => runs.length === 2, 5000, 'the run after the notification');
      expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(999);
      expect(runs[1]!).toBeGreaterThanOrEqual(notified);
    }));

  it("a held result after a failed run runs again after the held wait, not the failure's longer one", () =>
    // Run 0 (on LISTEN) fails: a retry in pollMs (1 s). Run 1, on a notification, finds events held: its retry in
    // heldRetryMs (100 ms) comes first.
    withTimedListener(
      { minGapMs: 50, runMs: 0, pollMs: 1000, heldRetryMs: 100, answers: ['fail', 'held'] },
      async ({ runs, notify }) => {
        await notify();
        await until(async () => runs.length >= 3, 5000, 'the run after the held one');
        expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(99);
        expect(runs[2]! - runs[1]!).toBeLessThan(600);
        expect(runs[2]! - runs[0]!).toBeLessThan(900);
      },
    ));

  it('delivers an event held behind an open transaction once that transaction ends', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    await createHook(tokens.admin, { url: `${rx.base}/held`, types: ['monitor.created'] });
    const holder = await client();
    try {
      // A transaction with an id, still open: the log's fence stays below every event committed after it.
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(makeMonitorInput());
      await new Promise((r) => setTimeout(r, 1500));
      expect(rx.got.filter((r) => r.path === '/held')).toHaveLength(0);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    // No new event notifies: the run that found it held looks again.
    await until(async () => rx.got.find((r) => r.path === '/held'), 5000, 'the held delivery');
  });

  it('polls while its connection is down, and listens again', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    await createHook(tokens.admin, { url: `${rx.base}/reconnect`, types: ['monitor.created'] });
    const pids = async () =>
      (
        await h.prisma.$queryRaw<Array<{ pid: number }>>`
          SELECT pid FROM pg_stat_activity WHERE application_name = ${WEBHOOK_LISTENER_NAME}
            AND datname = current_database()`
      ).map((r) => r.pid);
    const [before] = await until(async () => ((await pids()).length ? pids() : null), 5000, 'the listener');
    await h.prisma.$queryRaw`SELECT pg_terminate_backend(${before}::int)`;
    await request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(makeMonitorInput());
    await until(async () => rx.got.find((r) => r.path === '/reconnect'), 5000, 'the delivery while down');
    const after = await until(
      async () => ((await pids()).some((p) => p !== before) ? pids() : null),
      10_000,
      'the listener back',
    );
    expect(after).not.toContain(before);
    await request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(makeMonitorInput());
    await until(
      async () => rx.got.filter((r) => r.path === '/reconnect').length >= 2,
      3000,
      'the delivery after it is back',
    );
  });
});
