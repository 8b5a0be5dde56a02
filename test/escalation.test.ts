import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Worker, type Job } from 'bullmq';
import request from 'supertest';
import { SMTPServer } from 'smtp-server';
import {
  ESCALATION_QUEUE,
  checkQueueName,
  createLogger,
  createSsrfGuard,
  createWorkerRedis,
  escalationJobId,
  verifyWebhookSignature,
  type EscalationJob,
} from '@statusvane/shared';
import { createPolicy, assignPolicy, policySigningSecret } from '../apps/api/src/services/admin/policy-commands.js';
import { escalationStateSchema, incidentRecordSchema } from '../apps/api/src/openapi/records.js';
import { createDeliverer } from '../apps/worker/src/escalation/deliver/deliverer.js';
import { ensureOpenLadders, runEscalationStep, scheduleIncidentLadder, type EscalationDeps, type StepOutcome } from '../apps/worker/src/escalation/engine.js';
import { checkProcessor } from '../apps/worker/src/processors/check.processor.js';
import { escalationProcessor } from '../apps/worker/src/processors/escalation.processor.js';
import { createHttpProbe } from '../apps/worker/src/probes/http.probe.js';
import { createTcpProbe } from '../apps/worker/src/probes/tcp.probe.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { waitFor } from './support/worker-harness.js';

// ---------------------------------------------------------------------------------------------------------------
// Local receivers: a webhook/Slack receiver (paths decide the answer) and an SMTP server
// ---------------------------------------------------------------------------------------------------------------

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path.startsWith('/hang')) return; // never answers: the sender's timeout must end it
      const status = path.startsWith('/fail') ? 500 : path.startsWith('/gone') ? 404 : path.startsWith('/down') ? 503 : 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    hits: (prefix: string) => received.filter((r) => r.path.startsWith(prefix)),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function startSmtp() {
  const mails: Array<{ to: string[]; raw: string }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

// ---------------------------------------------------------------------------------------------------------------
// Harness: the real API, a real escalation worker on the harness's queue prefix
// ---------------------------------------------------------------------------------------------------------------

let h: Harness;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let deps: EscalationDeps;
let worker: Worker;
let workerConnection: ReturnType<typeof createWorkerRedis>;
const completed: Array<{ id: string; outcome: StepOutcome }> = [];
const logger = createLogger({ level: 'error', json: true, service: 'test-escalation', silent: !process.env.TEST_LOG });
const FAST_RETRY = { attempts: 3, backoffMs: 50 };

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  rx = await startReceiver();
  smtp = await startSmtp();
  const deliverer = createDeliverer({
    guard: h.deps.guard,
    encryptionKey: h.config.encryption.current.key,
    smtp: { url: smtp.url, from: 'Statusvane <pager@statusvane.test>' },
    timeoutMs: 2000,
    retry: FAST_RETRY,
  });
  deps = { prisma: h.prisma, scheduler: h.deps.escalations!, deliverer, logger };
  workerConnection = createWorkerRedis(h.config.redisUrl);
  workerConnection.on('error', () => undefined);
  worker = new Worker(ESCALATION_QUEUE, escalationProcessor(deps), { connection: workerConnection, prefix: h.queuePrefix, concurrency: 10 });
  worker.on('completed', (job: Job, outcome: StepOutcome) => completed.push({ id: job.id!, outcome }));
});

afterAll(async () => {
  await worker.close();
  workerConnection.disconnect();
  deps.deliverer.close();
  await rx.close();
  await smtp.close();
  await h.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

type StepInput = { delayMinutes: number; minImpact?: string; targets: Array<{ channel: string; target: string }> };

async function policyFor(slug: string, steps: StepInput[], over: Record<string, unknown> = {}, asDefault = true) {
  return createPolicy(h.prisma, { workspace: slug, json: JSON.stringify({ name: 'On call', steps, ...over }), default: asDefault }, { guard: h.deps.guard });
}

/** A monitor row without scheduling (nothing probes it in these tests). */
async function monitorIn(workspaceId: string) {
  const component = await h.prisma.component.create({ data: { workspaceId, name: 'API' } });
  return h.prisma.monitor.create({ data: { workspaceId, componentId: component.id, name: 'API', target: 'https://93.184.215.14/health' } });
}

async function openIncident(workspaceId: string, monitorId: string | null, over: Record<string, unknown> = {}) {
  return h.prisma.incident.create({
    data: { workspaceId, monitorId, openMonitorId: monitorId, title: 'API is down', impact: 'major', ...over },
  });
}

const rowsOf = (incidentId: string) =>
  h.prisma.escalationDelivery.findMany({ where: { incidentId }, orderBy: [{ cycle: 'asc' }, { step: { position: 'asc' } }, { targetRef: { position: 'asc' } }], include: { step: true } });

const jobDone = (job: EscalationJob) => waitFor(async () => completed.find((c) => c.id === escalationJobId(job)), 10_000, `job ${escalationJobId(job)}`);

async function escalation(token: string, incidentId: string) {
  const res = await request(h.app).get(`/api/v1/incidents/${incidentId}/escalation`).set(bearer(token));
  expect(res.status).toBe(200);
  expect(escalationStateSchema.safeParse(res.body.data).error).toBeUndefined();
  return res.body.data;
}

// ---------------------------------------------------------------------------------------------------------------

describe('the ladder, end to end', () => {
  it('a delay-0 step pages within seconds of the incident opening through the check queue: signed webhook, Slack and email', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const policy = await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        targets: [
          { channel: 'webhook', target: `${rx.base}/hook/${ws.id}?token=s3cret` },
          { channel: 'slack', target: `${rx.base}/slack/T000/B000/${ws.id}` },
          { channel: 'email', target: 'oncall@example.test' },
        ],
      },
      { delayMinutes: 30, targets: [{ channel: 'webhook', target: `${rx.base}/later/${ws.id}` }] },
    ], { runbook: 'Restart the API pods.' });
    expect(policy).toMatchObject({ isDefault: true, steps: [{ position: 0 }, { position: 1 }] });

    // A check worker wired as apps/worker/src/main.ts wires it: an opened incident starts its ladder.
    const connection = createWorkerRedis(h.config.redisUrl);
    connection.on('error', () => undefined);
    const checks = new Worker(
      checkQueueName('local'),
      checkProcessor({
        prisma: h.prisma,
        keyring: h.config.encryption,
        httpProbe: createHttpProbe({ guard: h.deps.guard }),
        tcpProbe: createTcpProbe({ guard: h.deps.guard }),
        logger,
        onIncidentOpened: (id) => scheduleIncidentLadder(deps, id),
      }),
      { connection, prefix: h.queuePrefix },
    );
    try {
      const created = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.owner))
        .send({ name: 'API', target: `${rx.base}/down/${ws.id}`, openThreshold: 1 });
      expect(created.status).toBe(201);
      const opened = Date.now();
      const [hook] = await waitFor(async () => {
        const hits = rx.hits(`/hook/${ws.id}`);
        return hits.length ? hits : null;
      }, 10_000, 'the webhook page');
      expect(Date.now() - opened).toBeLessThan(5000);

      // Signed as documented: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>, with the admin-printed secret.
      const { secret } = await policySigningSecret(h.prisma, { workspace: ws.slug }, { encryptionKey: h.config.encryption.current.key });
      const timestamp = String(hook!.headers['x-statusvane-timestamp']);
      const signature = String(hook!.headers['x-statusvane-signature']);
      expect(verifyWebhookSignature(secret, { timestamp, body: hook!.body, signature })).toBe(true);
      expect(verifyWebhookSignature(secret, { timestamp, body: `${hook!.body} `, signature })).toBe(false);
      expect(verifyWebhookSignature('another-secret', { timestamp, body: hook!.body, signature })).toBe(false);
      const page = JSON.parse(hook!.body);
      const [incident] = await h.prisma.incident.findMany({ where: { workspaceId: ws.id } });
      expect(page).toMatchObject({
        type: 'incident.escalation',
        workspaceId: ws.id,
        incident: { id: incident!.id, title: 'API is down', status: 'open', impact: 'major', source: 'monitor' },
        policy: { id: policy.id, name: 'On call', runbook: 'Restart the API pods.' },
        step: { position: 0, delayMinutes: 0, cycle: 0 },
      });
      expect(hook!.headers['x-statusvane-delivery']).toBe(page.deliveryId);
      expect(hook!.headers['content-type']).toMatch(/^application\/json/);

      const rows = await waitFor(async () => {
        const r = await rowsOf(incident!.id);
        return r.length === 3 && r.every((d) => d.status !== 'pending') ? r : null;
      }, 10_000, 'the three deliveries');
      expect(rows.map((d) => [d.channel, d.status, d.attempts, d.reason])).toEqual(
        expect.arrayContaining([
          ['webhook', 'sent', 1, null],
          ['slack', 'sent', 1, null],
          ['email', 'sent', 1, null],
        ]),
      );
      const [slack] = rx.hits(`/slack/T000/B000/${ws.id}`);
      expect(Object.keys(JSON.parse(slack!.body))).toEqual(['text']);
      expect(JSON.parse(slack!.body).text).toContain('API is down');
      const mail = await waitFor(async () => smtp.mails.find((m) => m.to.includes('oncall@example.test') && m.raw.includes(incident!.id)));
      expect(mail.raw).toMatch(/Subject: \[Statusvane\] API is down \(major\)/);
      expect(mail.raw).toContain('Restart the API pods.');

      // The record: step 0 fired and due, step 1 pending; webhook and Slack URLs redacted, email shown.
      const state = await escalation(tokens.viewer, incident!.id);
      expect(state).toMatchObject({
        incidentId: incident!.id,
        status: 'open',
        acknowledgedAt: null,
        resolvedAt: null,
        escalating: true,
        elapsedMinutes: 0,
        policy: { id: policy.id, name: 'On call', repeatCount: 0, silent: false, runbook: 'Restart the API pods.' },
        note: null,
      });
      expect(state.steps).toHaveLength(2);
      expect(state.steps[0]).toMatchObject({ stepId: policy.steps[0]!.id, position: 0, delayMinutes: 0, minImpact: 'none', due: true, fired: true });
      expect(Date.parse(state.steps[0].firedAt)).toBeGreaterThanOrEqual(incident!.startedAt.getTime());
      expect(state.steps[0].deliveries).toEqual([
        { channel: 'webhook', target: `${rx.base}/…`, status: 'sent', sentAt: expect.any(String) },
        { channel: 'slack', target: `${rx.base}/…`, status: 'sent', sentAt: expect.any(String) },
        { channel: 'email', target: 'oncall@example.test', status: 'sent', sentAt: expect.any(String) },
      ]);
      expect(JSON.stringify(state)).not.toContain('s3cret');
      expect(state.steps[1]).toEqual({
        stepId: policy.steps[1]!.id,
        position: 1,
        delayMinutes: 30,
        minImpact: 'none',
        due: false,
        fired: false,
        firedAt: null,
        deliveries: [],
      });

      // Step 1's job waits in the delayed set; acknowledging removes it and stops the ladder.
      const next = { incidentId: incident!.id, cycle: 0, position: 1 };
      expect(await (await h.deps.escalations!.queue.getJob(escalationJobId(next)))?.isDelayed()).toBe(true);
      const ack = await request(h.app).post(`/api/v1/incidents/${incident!.id}/acknowledge`).set(bearer(tokens.member));
      expect(ack.status).toBe(200);
      expect(await h.deps.escalations!.queue.getJob(escalationJobId(next))).toBeUndefined();
      const after = await escalation(tokens.viewer, incident!.id);
      expect(after).toMatchObject({ status: 'acknowledged', escalating: false, acknowledgedAt: ack.body.data.acknowledgedAt });
      expect(after.note).toMatch(/^Acknowledged at .*: the ladder has stopped\.$/);
    } finally {
      await checks.close();
      connection.disconnect();
    }
  });

  it('acknowledging stops the next step: its time comes and nothing pages', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/first/${ws.id}` }] },
      { delayMinutes: 1, targets: [{ channel: 'webhook', target: `${rx.base}/second/${ws.id}` }] },
    ]);
    const monitor = await monitorIn(ws.id);
    // Started 58.5 s ago: step 1 comes due 1.5 s from now.
    const incident = await openIncident(ws.id, monitor.id, { startedAt: new Date(Date.now() - 58_500) });
    expect(await scheduleIncidentLadder(deps, incident.id)).toEqual({ scheduled: 2 });
    await waitFor(async () => rx.hits(`/first/${ws.id}`).length === 1);
    expect((await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect(rx.hits(`/second/${ws.id}`)).toHaveLength(0);
    // Even a job that was not removed finds the incident not open and does nothing.
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 1 })).toEqual({ outcome: 'stopped', reason: 'incident acknowledged' });
    expect((await rowsOf(incident.id)).map((d) => d.step.position)).toEqual([0]);
    const state = await escalation(tokens.viewer, incident.id);
    // The ladder's clock stopped at the acknowledgement: step 1 came due after it, so it is not shown as due.
    expect(state.steps.map((s: { due: boolean; fired: boolean }) => [s.due, s.fired])).toEqual([
      [true, true],
      [false, false],
    ]);
  });

  it('a step whose minImpact is above the incident impact never fires', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, minImpact: 'critical', targets: [{ channel: 'webhook', target: `${rx.base}/critical/${ws.id}` }] }]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    await scheduleIncidentLadder(deps, incident.id);
    const done = await jobDone({ incidentId: incident.id, cycle: 0, position: 0 });
    expect(done.outcome).toMatchObject({ outcome: 'skipped', reason: 'below minImpact' });
    expect(rx.hits(`/critical/${ws.id}`)).toHaveLength(0);
    expect(await rowsOf(incident.id)).toHaveLength(0);
    const state = await escalation(tokens.viewer, incident.id);
    expect(state).toMatchObject({ escalating: false, steps: [{ minImpact: 'critical', due: false, fired: false, deliveries: [] }] });
    expect(state.note).toMatch(/No step applies to a major incident/);
  });

  it('a silent policy fires its steps and records every delivery as skipped', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(
      ws.slug,
      [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/silent/${ws.id}` }, { channel: 'email', target: 'quiet@example.test' }] }],
      { silent: true },
    );
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    await scheduleIncidentLadder(deps, incident.id);
    const done = await jobDone({ incidentId: incident.id, cycle: 0, position: 0 });
    expect(done.outcome).toMatchObject({ outcome: 'fired', sent: 0, skipped: 2 });
    expect((await rowsOf(incident.id)).map((d) => [d.channel, d.status, d.reason, d.sentAt])).toEqual([
      ['webhook', 'skipped', 'silent policy', null],
      ['email', 'skipped', 'silent policy', null],
    ]);
    expect(rx.hits(`/silent/${ws.id}`)).toHaveLength(0);
    expect(smtp.mails.some((m) => m.to.includes('quiet@example.test'))).toBe(false);
    const state = await escalation(tokens.viewer, incident.id);
    expect(state.steps[0]).toMatchObject({ fired: true, deliveries: [{ status: 'skipped', sentAt: null }, { status: 'skipped', sentAt: null }] });
    // Exhausted (one step, no repeats) wins over the silent note.
    expect(state).toMatchObject({ escalating: false, policy: { silent: true } });
  });

  it('a receiver that fails is retried with backoff and the delivery ends failed with the reason; a 404 is not retried', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/fail/${ws.id}` }, { channel: 'slack', target: `${rx.base}/gone/${ws.id}` }] },
    ]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    await scheduleIncidentLadder(deps, incident.id);
    const done = await jobDone({ incidentId: incident.id, cycle: 0, position: 0 });
    expect(done.outcome).toMatchObject({ outcome: 'fired', sent: 0, failed: 2 });
    expect((await rowsOf(incident.id)).map((d) => [d.channel, d.status, d.attempts, d.reason, d.sentAt])).toEqual([
      ['webhook', 'failed', 3, 'http_500', null],
      ['slack', 'failed', 1, 'http_404', null],
    ]);
    const attempts = rx.hits(`/fail/${ws.id}`);
    expect(attempts).toHaveLength(3);
    // The same page every time (same delivery id), signed afresh.
    expect(new Set(attempts.map((a) => a.headers['x-statusvane-delivery'])).size).toBe(1);
    expect(rx.hits(`/gone/${ws.id}`)).toHaveLength(1);
  });

  it('a job that runs twice, or twice at once, pages once', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/once/${ws.id}` }, { channel: 'email', target: 'once@example.test' }] }]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    const job = { incidentId: incident.id, cycle: 0, position: 0 };
    // Not through the queue: the engine itself, as two racing workers and then a redelivered job would run it.
    const outcomes = await Promise.all([runEscalationStep(deps, job), runEscalationStep(deps, job), runEscalationStep(deps, job)]);
    const again = await runEscalationStep(deps, job);
    const fired = [...outcomes, again].filter((o): o is Extract<StepOutcome, { outcome: 'fired' }> => o.outcome === 'fired');
    expect(fired.reduce((n, o) => n + o.sent, 0)).toBe(2);
    expect(fired.reduce((n, o) => n + o.duplicates, 0)).toBe(3 * 2);
    expect(rx.hits(`/once/${ws.id}`)).toHaveLength(1);
    expect(smtp.mails.filter((m) => m.to.includes('once@example.test'))).toHaveLength(1);
    expect(await rowsOf(incident.id)).toHaveLength(2);
  });

  it('repeats the ladder repeatCount more times, each cycle starting when the previous cycle last step fired', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/repeat/${ws.id}` }] }], { repeatCount: 2 });
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    await scheduleIncidentLadder(deps, incident.id);
    await jobDone({ incidentId: incident.id, cycle: 2, position: 0 });
    expect(rx.hits(`/repeat/${ws.id}`).map((r) => JSON.parse(r.body).step.cycle)).toEqual([0, 1, 2]);
    const rows = await waitFor(async () => {
      const r = await rowsOf(incident.id);
      return r.every((d) => d.status === 'sent') ? r : null;
    });
    expect(rows.map((d) => d.cycle)).toEqual([0, 1, 2]);
    const state = await escalation(tokens.viewer, incident.id);
    expect(state.escalating).toBe(false);
    expect(state.note).toBe('The ladder has run all 3 cycle(s): nothing more will page.');
    expect(state.steps[0].deliveries).toHaveLength(3);
    expect(state.steps[0].firedAt).toBe(rows[2]!.createdAt.toISOString());
  });

  it('a step due during maintenance waits for the window to end', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/maint/${ws.id}` }] }]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    const endsAt = new Date(Date.now() + 3_600_000);
    await h.prisma.maintenanceWindow.create({ data: { workspaceId: ws.id, title: 'deploy', startsAt: new Date(Date.now() - 60_000), endsAt } });
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 })).toEqual({ outcome: 'deferred', reason: 'maintenance', until: endsAt });
    expect(await rowsOf(incident.id)).toHaveLength(0);
  });
});

describe('deliveries', () => {
  it('email is skipped with a reason when SMTP_URL is not set', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'nobody@example.test' }] }]);
    const incident = await openIncident(ws.id, null, { source: 'manual' });
    const noSmtp = { ...deps, deliverer: createDeliverer({ guard: h.deps.guard, encryptionKey: h.config.encryption.current.key, smtp: null }) };
    expect(await runEscalationStep(noSmtp, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({ outcome: 'fired', skipped: 1 });
    expect((await rowsOf(incident.id)).map((d) => [d.status, d.reason, d.attempts])).toEqual([['skipped', 'email not configured', 0]]);
  });

  it('times out a receiver that never answers, and refuses targets the SSRF policy blocks at connect time', async () => {
    const page = {
      deliveryId: '00000000-0000-4000-8000-000000000000',
      workspaceId: '00000000-0000-4000-8000-000000000001',
      incident: { id: 'i', title: 't', status: 'open', impact: 'major', source: 'monitor', startedAt: new Date().toISOString(), monitorId: null, metadata: {} },
      policy: { id: 'p', name: 'n', runbook: '' },
      step: { id: 's', position: 0, delayMinutes: 0, minImpact: 'none', cycle: 0 },
      firedAt: new Date().toISOString(),
    };
    const quick = createDeliverer({ guard: h.deps.guard, encryptionKey: Buffer.alloc(32), smtp: null, timeoutMs: 200, retry: { attempts: 2, backoffMs: 10 } });
    expect(await quick.deliver('webhook', `${rx.base}/hang/${uniq()}`, page)).toMatchObject({ status: 'failed', attempts: 2, reason: 'timeout' });
    // Without ALLOWED_TARGET_CIDRS, loopback is refused when connecting (a name that resolves there too), not retried.
    const strict = createDeliverer({ guard: createSsrfGuard(), encryptionKey: Buffer.alloc(32), smtp: null, retry: FAST_RETRY });
    expect(await strict.deliver('webhook', `${rx.base}/ssrf`, page)).toMatchObject({ status: 'failed', attempts: 1, reason: 'ssrf_blocked' });
    const port = new URL(rx.base).port;
    expect(await strict.deliver('slack', `http://localhost:${port}/ssrf`, page)).toMatchObject({ status: 'failed', attempts: 1, reason: 'ssrf_blocked' });
    expect(rx.hits('/ssrf')).toHaveLength(0);
  });
});

describe('GET /incidents/{id}/escalation', () => {
  it('with no policy in effect: policy null, no steps, a note', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id, { startedAt: new Date(Date.now() - 7.5 * 60_000) });
    expect(await scheduleIncidentLadder(deps, incident.id)).toEqual({ scheduled: 0 });
    expect(await escalation(tokens.viewer, incident.id)).toEqual({
      incidentId: incident.id,
      status: 'open',
      acknowledgedAt: null,
      resolvedAt: null,
      escalating: false,
      elapsedMinutes: 7,
      policy: null,
      steps: [],
      note: 'No escalation policy applies: the monitor has none and the workspace has no default policy.',
    });
  });

  it("the monitor's own policy wins over the workspace default", async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'default@example.test' }] }]);
    const own = await policyFor(ws.slug, [{ delayMinutes: 5, targets: [{ channel: 'email', target: 'own@example.test' }] }], { name: 'Payments' }, false);
    const monitor = await monitorIn(ws.id);
    const assigned = await assignPolicy(h.prisma, { monitor: monitor.id, policy: own.id });
    expect(assigned).toMatchObject({ monitorId: monitor.id, policy: { id: own.id, isDefault: false } });
    const incident = await openIncident(ws.id, monitor.id);
    const state = await escalation(tokens.viewer, incident.id);
    expect(state).toMatchObject({ policy: { id: own.id, name: 'Payments' }, escalating: true, steps: [{ delayMinutes: 5, due: false, fired: false }], note: null });
  });

  it('is 404 for a foreign or malformed id', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const other = await makeWorkspace(h.prisma);
    const incident = await openIncident(ws.id, null);
    for (const id of [incident.id, 'not-a-uuid']) {
      const res = await request(h.app).get(`/api/v1/incidents/${id}/escalation`).set(bearer(other.tokens.owner));
      expect([id, res.status, res.body.error?.code]).toEqual([id, 404, 'not_found']);
    }
  });
});

describe('POST /incidents/{id}/acknowledge and /resolve', () => {
  it('member and above: acknowledge 200 (repeat: no-op 200), resolve 200 (repeat: no-op 200), acknowledge a resolved one 409', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const monitor = await monitorIn(ws.id);
    await h.prisma.monitor.update({ where: { id: monitor.id }, data: { consecutiveFailures: 4 } });
    const incident = await openIncident(ws.id, monitor.id);

    for (const action of ['acknowledge', 'resolve']) {
      const res = await request(h.app).post(`/api/v1/incidents/${incident.id}/${action}`).set(bearer(tokens.viewer));
      expect([action, res.status, res.body.error?.code]).toEqual([action, 403, 'forbidden']);
    }
    const bad = await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member)).send({ note: 'x' });
    expect([bad.status, bad.body.error.details.issues]).toEqual([400, [{ path: 'note', message: 'Unknown field' }]]);

    const ack = await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member));
    expect(ack.status).toBe(200);
    expect(incidentRecordSchema.safeParse(ack.body.data).error).toBeUndefined();
    expect(ack.body.data).toMatchObject({ id: incident.id, status: 'acknowledged', resolvedAt: null, acknowledgedAt: expect.any(String) });
    const again = await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.admin));
    expect([again.status, again.body.data]).toEqual([200, ack.body.data]);

    const resolved = await request(h.app).post(`/api/v1/incidents/${incident.id}/resolve`).set(bearer(tokens.member));
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({ status: 'resolved', acknowledgedAt: ack.body.data.acknowledgedAt, resolvedAt: expect.any(String) });
    expect(await h.prisma.incident.findUnique({ where: { id: incident.id } })).toMatchObject({ openMonitorId: null });
    expect(await h.prisma.monitor.findUnique({ where: { id: monitor.id } })).toMatchObject({ consecutiveFailures: 0, consecutivePasses: 0 });
    const twice = await request(h.app).post(`/api/v1/incidents/${incident.id}/resolve`).set(bearer(tokens.owner));
    expect([twice.status, twice.body.data]).toEqual([200, resolved.body.data]);

    const late = await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.owner));
    expect([late.status, late.body.error.code]).toEqual([409, 'conflict']);

    // The monitor may open a new incident now: the unique openMonitorId is free.
    await expect(openIncident(ws.id, monitor.id)).resolves.toBeTruthy();
    const state = await escalation(tokens.viewer, incident.id);
    expect(state).toMatchObject({ status: 'resolved', escalating: false, policy: null });
  });

  it('resolving an open incident directly stops its ladder', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'a@example.test' }] }, { delayMinutes: 60, targets: [{ channel: 'email', target: 'b@example.test' }] }]);
    const incident = await openIncident(ws.id, null);
    await scheduleIncidentLadder(deps, incident.id);
    await jobDone({ incidentId: incident.id, cycle: 0, position: 0 });
    const res = await request(h.app).post(`/api/v1/incidents/${incident.id}/resolve`).set(bearer(tokens.member));
    expect(res.status).toBe(200);
    expect(await h.deps.escalations!.queue.getJob(escalationJobId({ incidentId: incident.id, cycle: 0, position: 1 }))).toBeUndefined();
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 1 })).toEqual({ outcome: 'stopped', reason: 'incident resolved' });
    expect((await escalation(tokens.viewer, incident.id)).note).toMatch(/^Resolved at .*: the ladder has stopped\.$/);
  });

  it('is 404 for a foreign or malformed id', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const other = await makeWorkspace(h.prisma);
    const incident = await openIncident(ws.id, null);
    for (const action of ['acknowledge', 'resolve']) {
      for (const id of [incident.id, '12345']) {
        const res = await request(h.app).post(`/api/v1/incidents/${id}/${action}`).set(bearer(other.tokens.owner));
        expect([action, id, res.status]).toEqual([action, id, 404]);
      }
    }
    expect((await h.prisma.incident.findUnique({ where: { id: incident.id } }))!.status).toBe('open');
  });
});

describe('admin: policy commands', () => {
  const run = promisify(execFile);
  const root = join(import.meta.dirname, '..');

  it('validates the policy JSON strictly and refuses webhook targets that the SSRF policy blocks', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const strict = { guard: createSsrfGuard() };
    const attempt = (json: unknown, guard = strict) =>
      createPolicy(h.prisma, { workspace: ws.slug, json: typeof json === 'string' ? json : JSON.stringify(json) }, guard).then(
        () => null,
        (err: { code: string; details?: { issues: Array<{ path: string; message: string }> } }) => ({ code: err.code, paths: err.details?.issues.map((i) => i.path) }),
      );
    const ok = { delayMinutes: 0, targets: [{ channel: 'email', target: 'a@example.test' }] };
    expect(await attempt('{nope')).toEqual({ code: 'invalid_request', paths: ['json'] });
    expect(await attempt({ name: 'x', steps: [] })).toEqual({ code: 'invalid_request', paths: ['json.steps'] });
    expect(await attempt({ name: 'x', steps: [ok], extra: 1 })).toEqual({ code: 'invalid_request', paths: ['json.extra'] });
    expect(await attempt({ name: 'x', repeatCount: 11, steps: [ok] })).toEqual({ code: 'invalid_request', paths: ['json.repeatCount'] });
    expect(await attempt({ name: 'x', runbook: 'r'.repeat(4001), steps: [ok] })).toEqual({ code: 'invalid_request', paths: ['json.runbook'] });
    expect(await attempt({ name: 'x', steps: [{ ...ok, delayMinutes: 10_081 }] })).toEqual({ code: 'invalid_request', paths: ['json.steps[0].delayMinutes'] });
    expect(await attempt({ name: 'x', steps: [{ ...ok, delayMinutes: 10 }, ok] })).toEqual({ code: 'invalid_request', paths: ['json.steps[1].delayMinutes'] });
    expect(await attempt({ name: 'x', steps: [{ ...ok, minImpact: 'huge' }] })).toEqual({ code: 'invalid_request', paths: ['json.steps[0].minImpact'] });
    expect(await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'not-an-address' }] }] })).toEqual({
      code: 'invalid_request',
      paths: ['json.steps[0].targets[0].target'],
    });
    expect(await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: [{ channel: 'pager', target: 'x' }] }] })).toMatchObject({ code: 'invalid_request' });
    expect(await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: Array.from({ length: 11 }, () => ok.targets[0]) }] })).toEqual({
      code: 'invalid_request',
      paths: ['json.steps[0].targets'],
    });
    expect(
      await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: 'ftp://example.com/x' }] }] }),
    ).toEqual({ code: 'invalid_request', paths: ['json.steps[0].targets[0].target'] });
    for (const target of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest', 'https://[::1]/x', 'http://2130706433/']) {
      expect([target, await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: [{ channel: 'slack', target }] }] })]).toEqual([
        target,
        { code: 'invalid_request', paths: ['json.steps[0].targets[0].target'] },
      ]);
    }
    // The same loopback target passes where the deployment allows it (ALLOWED_TARGET_CIDRS).
    expect(await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: 'http://127.0.0.1:9/hook' }] }] }, { guard: h.deps.guard })).toBeNull();
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: ws.id } })).toBe(1);
  });

  it('assign refuses a policy of another workspace', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const policy = await policyFor(a.ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'a@example.test' }] }]);
    const monitor = await monitorIn(b.ws.id);
    await expect(assignPolicy(h.prisma, { monitor: monitor.id, policy: policy.id })).rejects.toMatchObject({ code: 'conflict' });
    await expect(assignPolicy(h.prisma, { monitor: monitor.id, policy: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'not_found' });
    expect(await assignPolicy(h.prisma, { monitor: monitor.id, policy: 'none' })).toMatchObject({ policy: null });
  });

  it('runs from the CLI: policy create --default prints the record, assign and signing-secret print JSON', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const monitor = await monitorIn(ws.id);
    const admin = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'apps/api/src/admin/main.ts', ...args], {
        cwd: root,
        env: { ...process.env, ALLOWED_TARGET_CIDRS: '' },
      });
      return JSON.parse(stdout);
    };
    const json = JSON.stringify({
      name: 'Primary',
      repeatCount: 1,
      runbook: 'Page the lead.',
      steps: [{ delayMinutes: 0, minImpact: 'major', targets: [{ channel: 'email', target: 'lead@example.test' }] }],
    });
    const created = await admin('policy', 'create', '--workspace', ws.slug, '--json', json, '--default');
    expect(created).toMatchObject({
      workspaceId: ws.id,
      name: 'Primary',
      repeatCount: 1,
      silent: false,
      runbook: 'Page the lead.',
      isDefault: true,
      steps: [{ position: 0, delayMinutes: 0, minImpact: 'major', targets: [{ channel: 'email', target: 'lead@example.test' }] }],
    });
    expect((await h.prisma.workspace.findUnique({ where: { id: ws.id } }))!.defaultEscalationPolicyId).toBe(created.id);
    expect(await admin('policy', 'assign', '--monitor', monitor.id, '--policy', created.id)).toMatchObject({ monitorId: monitor.id, policy: { id: created.id } });
    const secret = await admin('policy', 'signing-secret', '--workspace', ws.slug);
    expect(secret).toMatchObject({ workspaceId: ws.id, algorithm: 'HMAC-SHA256', signatureHeader: 'X-Statusvane-Signature', secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
  }, 30_000);
});

describe('the ladder sweeper', () => {
  it('gives an open incident whose jobs were never added (or were lost with Redis data) its ladder back', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/swept/${ws.id}` }] }]);
    const monitor = await monitorIn(ws.id);
    // Opened two minutes ago, and the opening hook never ran.
    const incident = await openIncident(ws.id, monitor.id, { startedAt: new Date(Date.now() - 120_000) });
    const acked = await openIncident(ws.id, null, { startedAt: new Date(Date.now() - 120_000), status: 'acknowledged', acknowledgedAt: new Date() });
    const young = await openIncident(ws.id, null, { startedAt: new Date() });

    const report = await ensureOpenLadders(deps);
    expect(report.scheduled).toBeGreaterThanOrEqual(1);
    await waitFor(async () => rx.hits(`/swept/${ws.id}`).length === 1, 10_000, 'the swept page');
    expect((await rowsOf(incident.id)).map((r) => r.status)).toEqual(['sent']);
    // Sweeping again pages nobody twice; acknowledged and brand-new incidents are left alone.
    await ensureOpenLadders(deps);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.hits(`/swept/${ws.id}`)).toHaveLength(1);
    expect(await rowsOf(acked.id)).toHaveLength(0);
    expect(await rowsOf(young.id)).toHaveLength(0);
  });
});

