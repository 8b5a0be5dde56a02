import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type express from 'express';
import request from 'supertest';
import { createApp } from '../apps/api/src/app.js';
import {
  ESCALATION_QUEUE,
  EscalationScheduler,
  createLogger,
  createSsrfGuard,
  createWorkerRedis,
  escalationJobId,
  openTarget,
  verifyWebhookSignature,
  type EscalationJob,
} from '@statusvane/shared';
import { createPolicy, assignPolicy, policySigningSecret } from '../apps/api/src/admin/policy-commands.js';
import { escalationStateSchema } from '../apps/api/src/services/incidents/get-escalation.js';
import { incidentRecordSchema } from '../apps/api/src/services/incidents/incident-record.js';
import { createDeliverer, workspaceSigningSecrets } from '@statusvane/shared';
import {
  ensureOpenLadders,
  reconcileStaleDeliveries,
  runEscalationStep,
  scheduleIncidentLadder,
  sweepEscalations,
  type EscalationDeps,
  type StepOutcome,
} from '../apps/worker/src/escalation/engine.js';
import { escalationProcessor } from '../apps/worker/src/processors/escalation.processor.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startSmtp } from './support/smtp.js';
import { startRuntime, waitFor } from './support/worker-harness.js';
import { adminCli } from './support/admin-cli.js';

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
      const status = path.startsWith('/fail')
        ? 500
        : path.startsWith('/gone')
          ? 404
          : path.startsWith('/down')
            ? 503
            : 200;
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

// ---------------------------------------------------------------------------------------------------------------
// Harness: the real API, a real escalation worker on the harness's queue prefix
// ---------------------------------------------------------------------------------------------------------------

let h: Harness;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let deps: EscalationDeps;
let worker: ReturnType<typeof startRuntime>;
const logger = createLogger({ level: 'error', json: true, service: 'test-escalation', silent: !process.env.TEST_LOG });
const FAST_RETRY = { attempts: 3, backoffMs: 50 };
/** A delivery of a channel target: no schedule, no user (section 10's person targets set them). */
const NO_PERSON = { scheduleId: null, userId: null };

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  rx = await startReceiver();
  smtp = await startSmtp();
  const deliverer = createDeliverer({
    guard: h.deps.guard,
    signingSecret: workspaceSigningSecrets(h.prisma, h.config.encryption.current.key),
    smtp: { url: smtp.url, from: 'Statusvane <pager@statusvane.test>' },
    timeoutMs: 2000,
    retry: FAST_RETRY,
  });
  // The runtime's escalation worker, its checks off (a test that needs them starts a check worker of its own);
  // maintenanceRecheckMs: a step deferred by maintenance looks at the window again after 1 s (60 s in production).
  worker = startRuntime(h, { logger, deliverer, parts: { checks: false }, timing: { maintenanceRecheckMs: 1000 } });
  deps = worker.runtime.escalationDeps;
});

afterAll(async () => {
  await worker.close();
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
  return createPolicy(
    h.prisma,
    { workspace: slug, json: JSON.stringify({ name: 'On call', steps, ...over }), default: asDefault },
    { guard: h.deps.guard, encryption: h.config.encryption.current },
  );
}

/** A monitor row without scheduling (nothing probes it in these tests). */
async function monitorIn(workspaceId: string) {
  const component = await h.prisma.component.create({ data: { workspaceId, name: 'API' } });
  return h.prisma.monitor.create({
    data: { workspaceId, componentId: component.id, name: 'API', target: 'https://93.184.215.14/health' },
  });
}

async function openIncident(workspaceId: string, monitorId: string | null, over: Record<string, unknown> = {}) {
  return h.prisma.incident.create({
    data: { workspaceId, monitorId, openMonitorId: monitorId, title: 'API is down', impact: 'major', ...over },
  });
}

const rowsOf = (incidentId: string) =>
  h.prisma.escalationDelivery.findMany({
    where: { incidentId },
    orderBy: [{ cycle: 'asc' }, { step: { position: 'asc' } }, { targetRef: { position: 'asc' } }],
    include: { step: true },
  });

const jobDone = (job: EscalationJob) =>
  waitFor(
    async () => worker.escalations.find((c) => c.id === escalationJobId(job)) as { outcome: StepOutcome } | undefined,
    10_000,
    `job ${escalationJobId(job)}`,
  );

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
    const policy = await policyFor(
      ws.slug,
      [
        {
          delayMinutes: 0,
          targets: [
            { channel: 'webhook', target: `${rx.base}/hook/${ws.id}?token=s3cret` },
            { channel: 'slack', target: `${rx.base}/slack/T000/B000/${ws.id}` },
            { channel: 'email', target: 'oncall@example.test' },
          ],
        },
        { delayMinutes: 30, targets: [{ channel: 'webhook', target: `${rx.base}/later/${ws.id}` }] },
      ],
      { runbook: 'Restart the API pods.' },
    );
    expect(policy).toMatchObject({ isDefault: true, steps: [{ position: 0 }, { position: 1 }] });

    // A check worker as apps/worker/src/main.ts runs it: an opened incident starts its ladder, which the suite's
    // escalation worker runs.
    const checks = startRuntime(h, { logger, parts: { escalations: false } });
    try {
      const created = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.owner))
        .send({ name: 'API', target: `${rx.base}/down/${ws.id}`, openThreshold: 1 });
      expect(created.status).toBe(201);
      const opened = Date.now();
      const [hook] = await waitFor(
        async () => {
          const hits = rx.hits(`/hook/${ws.id}`);
          return hits.length ? hits : null;
        },
        10_000,
        'the webhook page',
      );
      expect(Date.now() - opened).toBeLessThan(5000);

      // Signed as every Statusvane webhook: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>, with the admin-printed
      // secret.
      const { secret } = await policySigningSecret(
        h.prisma,
        { workspace: ws.slug },
        { encryptionKey: h.config.encryption.current.key },
      );
      const signature = String(hook!.headers['statusvane-signature']);
      expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(hook!.headers['x-statusvane-signature']).toBeUndefined();
      expect(verifyWebhookSignature(secret, signature, hook!.body)).toBe(true);
      expect(verifyWebhookSignature(secret, signature, `${hook!.body} `)).toBe(false);
      expect(verifyWebhookSignature('another-secret', signature, hook!.body)).toBe(false);
      const page = JSON.parse(hook!.body);
      const [incident] = await h.prisma.incident.findMany({ where: { workspaceId: ws.id } });
      expect(page).toMatchObject({
        type: 'incident.escalation',
        workspaceId: ws.id,
        incident: { id: incident!.id, title: 'API is down', status: 'open', impact: 'major', source: 'monitor' },
        policy: { id: policy.id, name: 'On call', runbook: 'Restart the API pods.' },
        step: { position: 0, delayMinutes: 0, cycle: 0 },
      });
      expect(hook!.headers['statusvane-delivery']).toBe(page.deliveryId);
      expect(hook!.headers['content-type']).toMatch(/^application\/json/);

      const rows = await waitFor(
        async () => {
          const r = await rowsOf(incident!.id);
          return r.length === 3 && r.every((d) => d.status !== 'pending') ? r : null;
        },
        10_000,
        'the three deliveries',
      );
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
      const mail = await waitFor(async () =>
        smtp.mails.find((m) => m.to.includes('oncall@example.test') && m.raw.includes(incident!.id)),
      );
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
        note: `Escalating: step 2 of 2 is due at ${new Date(incident!.startedAt.getTime() + 30 * 60_000).toISOString()}.`,
      });
      expect(state.steps).toHaveLength(2);
      expect(state.steps[0]).toMatchObject({
        stepId: policy.steps[0]!.id,
        position: 0,
        delayMinutes: 0,
        minImpact: 'none',
        due: true,
        fired: true,
      });
      expect(Date.parse(state.steps[0].firedAt)).toBeGreaterThanOrEqual(incident!.startedAt.getTime());
      expect(state.steps[0].deliveries).toEqual([
        {
          channel: 'webhook',
          target: `${rx.base}/…`,
          status: 'sent',
          sentAt: expect.any(String),
          reason: null,
          ...NO_PERSON,
        },
        {
          channel: 'slack',
          target: `${rx.base}/…`,
          status: 'sent',
          sentAt: expect.any(String),
          reason: null,
          ...NO_PERSON,
        },
        {
          channel: 'email',
          target: 'oncall@example.test',
          status: 'sent',
          sentAt: expect.any(String),
          reason: null,
          ...NO_PERSON,
        },
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
      expect(after).toMatchObject({
        status: 'acknowledged',
        escalating: false,
        acknowledgedAt: ack.body.data.acknowledgedAt,
      });
      expect(after.note).toMatch(/^Acknowledged at .*: the ladder has stopped\.$/);
    } finally {
      await checks.close();
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
    expect(
      (await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member))).status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect(rx.hits(`/second/${ws.id}`)).toHaveLength(0);
    // Even a job that was not removed finds the incident not open and does nothing.
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 1 })).toEqual({
      outcome: 'stopped',
      reason: 'incident acknowledged',
    });
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
    await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        minImpact: 'critical',
        targets: [{ channel: 'webhook', target: `${rx.base}/critical/${ws.id}` }],
      },
    ]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    await scheduleIncidentLadder(deps, incident.id);
    const done = await jobDone({ incidentId: incident.id, cycle: 0, position: 0 });
    expect(done.outcome).toMatchObject({ outcome: 'skipped', reason: 'below minImpact' });
    expect(rx.hits(`/critical/${ws.id}`)).toHaveLength(0);
    expect(await rowsOf(incident.id)).toHaveLength(0);
    const state = await escalation(tokens.viewer, incident.id);
    expect(state).toMatchObject({
      escalating: false,
      steps: [{ minImpact: 'critical', due: false, fired: false, deliveries: [] }],
    });
    expect(state.note).toMatch(/No step applies to a major incident/);
  });

  it('an incident of a monitor whose dependency is down pages nobody: deliveries skipped, dependency_down; once the parent recovers, the next step pages', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/dep/${ws.id}` }] },
      { delayMinutes: 1, targets: [{ channel: 'webhook', target: `${rx.base}/dep2/${ws.id}` }] },
    ]);
    const parent = await monitorIn(ws.id);
    const child = await monitorIn(ws.id);
    const linked = await request(h.app)
      .patch(`/api/v1/monitors/${child.id}`)
      .set(bearer(tokens.owner))
      .send({ dependsOn: [parent.id] });
    expect(linked.status).toBe(200);
    const parentIncident = await openIncident(ws.id, parent.id);
    // Opened without suppressedBy (the parent's incident committed a moment later, say): the step finds it.
    const incident = await openIncident(ws.id, child.id);
    await scheduleIncidentLadder(deps, incident.id);
    const done = await jobDone({ incidentId: incident.id, cycle: 0, position: 0 });
    expect(done.outcome).toMatchObject({ outcome: 'fired', sent: 0, skipped: 1 });
    expect((await rowsOf(incident.id)).map((d) => [d.cycle, d.status, d.reason, d.sentAt])).toEqual([
      [0, 'skipped', 'dependency_down', null],
    ]);
    expect(rx.hits(`/dep/${ws.id}`)).toHaveLength(0);
    const shown = await request(h.app).get(`/api/v1/incidents/${incident.id}`).set(bearer(tokens.viewer));
    expect(shown.body.data.suppressedBy).toBe(parentIncident.id);

    // The parent recovers, this monitor stays down: it is down on its own, and its next step pages.
    await h.prisma.incident.update({
      where: { id: parentIncident.id },
      data: { status: 'resolved', resolvedAt: new Date(), openMonitorId: null },
    });
    const next = await runEscalationStep(
      { ...deps, now: () => new Date(Date.now() + 120_000) },
      {
        incidentId: incident.id,
        cycle: 0,
        position: 1,
      },
    );
    expect(next).toMatchObject({ outcome: 'fired', sent: 1, skipped: 0 });
    expect(rx.hits(`/dep2/${ws.id}`)).toHaveLength(1);
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: incident.id } })).suppressedById).toBe(
      parentIncident.id,
    );
  });

  it('a silent policy fires its steps and records every delivery as skipped', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(
      ws.slug,
      [
        {
          delayMinutes: 0,
          targets: [
            { channel: 'webhook', target: `${rx.base}/silent/${ws.id}` },
            { channel: 'email', target: 'quiet@example.test' },
          ],
        },
      ],
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
    expect(state.steps[0]).toMatchObject({
      fired: true,
      deliveries: [
        { status: 'skipped', sentAt: null, reason: 'silent policy' },
        { status: 'skipped', sentAt: null, reason: 'silent policy' },
      ],
    });
    // Exhausted (one step, no repeats) wins over the silent note.
    expect(state).toMatchObject({ escalating: false, policy: { silent: true } });
  });

  it('a receiver that fails is retried with backoff and the delivery ends failed with the reason; a 404 is not retried', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        targets: [
          { channel: 'webhook', target: `${rx.base}/fail/${ws.id}` },
          { channel: 'slack', target: `${rx.base}/gone/${ws.id}` },
        ],
      },
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
    // The record says why: `reason` beside the spec's fields, on failed (and skipped) deliveries only.
    const state = await escalation(tokens.viewer, incident.id);
    expect(state.steps[0].deliveries).toEqual([
      { channel: 'webhook', target: `${rx.base}/…`, status: 'failed', sentAt: null, reason: 'http_500', ...NO_PERSON },
      { channel: 'slack', target: `${rx.base}/…`, status: 'failed', sentAt: null, reason: 'http_404', ...NO_PERSON },
    ]);
    // The same page every time (same delivery id), signed afresh.
    expect(new Set(attempts.map((a) => a.headers['statusvane-delivery'])).size).toBe(1);
    expect(rx.hits(`/gone/${ws.id}`)).toHaveLength(1);
  });

  it('a job that runs twice, or twice at once, pages once', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        targets: [
          { channel: 'webhook', target: `${rx.base}/once/${ws.id}` },
          { channel: 'email', target: 'once@example.test' },
        ],
      },
    ]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    const job = { incidentId: incident.id, cycle: 0, position: 0 };
    // Not through the queue: the engine itself, as two racing workers and then a redelivered job would run it.
    const outcomes = await Promise.all([
      runEscalationStep(deps, job),
      runEscalationStep(deps, job),
      runEscalationStep(deps, job),
    ]);
    const again = await runEscalationStep(deps, job);
    const fired = [...outcomes, again].filter(
      (o): o is Extract<StepOutcome, { outcome: 'fired' }> => o.outcome === 'fired',
    );
    expect(fired.reduce((n, o) => n + o.sent, 0)).toBe(2);
    expect(fired.reduce((n, o) => n + o.duplicates, 0)).toBe(3 * 2);
    expect(rx.hits(`/once/${ws.id}`)).toHaveLength(1);
    expect(smtp.mails.filter((m) => m.to.includes('once@example.test'))).toHaveLength(1);
    expect(await rowsOf(incident.id)).toHaveLength(2);
  });

  it('repeats the ladder repeatCount more times, each cycle starting when the previous cycle last step fired', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(
      ws.slug,
      [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/repeat/${ws.id}` }] }],
      { repeatCount: 2 },
    );
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

  it('a step due during maintenance waits, and pages within the re-check interval of the window being completed early', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/maint/${ws.id}` }] },
    ]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    // A three-hour window: without a cap on the deferral the step would sleep until its end.
    const window = await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: ws.id,
        title: 'deploy',
        startsAt: new Date(Date.now() - 60_000),
        endsAt: new Date(Date.now() + 3 * 3_600_000),
      },
    });
    await scheduleIncidentLadder(deps, incident.id);
    const job = await h.deps.escalations!.queue.getJob(
      escalationJobId({ incidentId: incident.id, cycle: 0, position: 0 }),
    );
    // The worker ran it and put it back in the delayed set (deferred, not failed): nothing paged, nothing stored.
    await waitFor(
      async () => (await job!.isDelayed()) && (await h.deps.escalations!.queue.getJob(job!.id!))!.processedOn,
      10_000,
      'the deferral',
    );
    expect(rx.hits(`/maint/${ws.id}`)).toHaveLength(0);
    expect(await rowsOf(incident.id)).toHaveLength(0);
    expect((await escalation(tokens.viewer, incident.id)).note).toMatch(
      /^The monitor is in maintenance until .*: steps that come due wait until it ends\.$/,
    );

    // The deploy finishes early: the window is completed through the API, hours before its planned end.
    const done = await request(h.app)
      .patch(`/api/v1/maintenance/${window.id}`)
      .set(bearer(tokens.owner))
      .send({ status: 'complete' });
    expect(done.status).toBe(200);
    const completedAt = Date.now();
    await waitFor(async () => rx.hits(`/maint/${ws.id}`).length === 1, 10_000, 'the page after the window');
    // deps.maintenanceRecheckMs is 1 s here: the page follows within about that, not at the window's planned end.
    expect(Date.now() - completedAt).toBeLessThan(4000);
  });
});

describe('the signing secret over the API', () => {
  it('managers read it once and rotate it; a page delivered after the rotation verifies with the new secret only', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const post = (path: string, token = tokens.admin) =>
      request(h.app).post(`/api/v1/escalation-policies/signing-secret/${path}`).set(bearer(token));
    for (const token of [tokens.member, tokens.viewer]) {
      expect((await post('reveal', token)).status).toBe(403);
      expect((await post('rotate', token)).status).toBe(403);
    }
    // Read once: the secret the admin CLI prints (generation 0), then 409.
    const cli = () =>
      policySigningSecret(h.prisma, { workspace: ws.slug }, { encryptionKey: h.config.encryption.current.key });
    const revealed = await post('reveal');
    expect(revealed.status).toBe(200);
    expect(revealed.body.data).toEqual({
      secret: (await cli()).secret,
      generation: 0,
      rotatedAt: null,
      algorithm: 'HMAC-SHA256',
      signatureHeader: 'Statusvane-Signature',
      signedPayload: '<t>.<raw body>',
    });
    const again = await post('reveal', tokens.owner);
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);

    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/rotated/${ws.id}` }] },
    ]);
    const page = async () => {
      const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
      await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 });
      return rx.hits(`/rotated/${ws.id}`).at(-1)!;
    };
    const old = revealed.body.data.secret as string;
    const before = await page();
    expect(verifyWebhookSignature(old, String(before.headers['statusvane-signature']), before.body)).toBe(true);

    const rotated = await post('rotate');
    expect(rotated.status).toBe(201);
    const secret = rotated.body.data.secret as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(secret).not.toBe(old);
    expect(rotated.body.data).toMatchObject({ generation: 1, rotatedAt: expect.any(String) });
    // The deliverer of this suite was built before the rotation: it signs the next page with the new secret.
    const after = await page();
    const signature = String(after.headers['statusvane-signature']);
    expect(verifyWebhookSignature(secret, signature, after.body)).toBe(true);
    expect(verifyWebhookSignature(old, signature, after.body)).toBe(false);
    // The admin CLI prints the secret in effect; the rotated one was shown in its answer, so no reveal.
    expect(await cli()).toMatchObject({ secret, generation: 1 });
    expect((await post('reveal')).status).toBe(409);

    const audit = await h.prisma.auditEvent.findMany({
      where: { workspaceId: ws.id, action: { startsWith: 'workspace.signing_secret' } },
      orderBy: { seq: 'asc' },
    });
    expect(audit.map((e) => e.action).sort()).toEqual([
      'workspace.signing_secret_revealed',
      'workspace.signing_secret_rotated',
    ]);
    const stored = JSON.stringify(audit.map((e) => e.changes));
    expect(audit[1]!.changes).toEqual({ generation: { from: 0, to: 1 } });
    for (const s of [secret, old]) expect(stored).not.toContain(s);
  });
});

describe('deliveries', () => {
  it('email is skipped with a reason when SMTP_URL is not set', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'nobody@example.test' }] }]);
    const incident = await openIncident(ws.id, null, { source: 'manual' });
    const noSmtp = {
      ...deps,
      deliverer: createDeliverer({
        guard: h.deps.guard,
        signingSecret: workspaceSigningSecrets(h.prisma, h.config.encryption.current.key),
        smtp: null,
      }),
    };
    expect(await runEscalationStep(noSmtp, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      skipped: 1,
    });
    expect((await rowsOf(incident.id)).map((d) => [d.status, d.reason, d.attempts])).toEqual([
      ['skipped', 'email not configured', 0],
    ]);
  });

  it('times out a receiver that never answers, and refuses targets the SSRF policy blocks at connect time', async () => {
    const page = {
      deliveryId: '00000000-0000-4000-8000-000000000000',
      workspaceId: '00000000-0000-4000-8000-000000000001',
      incident: {
        id: 'i',
        title: 't',
        status: 'open',
        impact: 'major',
        source: 'monitor',
        startedAt: new Date().toISOString(),
        monitorId: null,
        metadata: {},
      },
      policy: { id: 'p', name: 'n', runbook: '' },
      step: { id: 's', position: 0, delayMinutes: 0, minImpact: 'none', cycle: 0 },
      firedAt: new Date().toISOString(),
    };
    const quick = createDeliverer({
      guard: h.deps.guard,
      signingSecret: workspaceSigningSecrets(h.prisma, Buffer.alloc(32)),
      smtp: null,
      timeoutMs: 200,
      retry: { attempts: 2, backoffMs: 10 },
    });
    expect(await quick.deliver('webhook', `${rx.base}/hang/${uniq()}`, page)).toMatchObject({
      status: 'failed',
      attempts: 2,
      reason: 'timeout',
    });
    // Without ALLOWED_TARGET_CIDRS, loopback is refused when connecting (a name that resolves there too), not retried.
    const strict = createDeliverer({
      guard: createSsrfGuard(),
      signingSecret: workspaceSigningSecrets(h.prisma, Buffer.alloc(32)),
      smtp: null,
      retry: FAST_RETRY,
    });
    expect(await strict.deliver('webhook', `${rx.base}/ssrf`, page)).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: 'ssrf_blocked',
    });
    const port = new URL(rx.base).port;
    expect(await strict.deliver('slack', `http://localhost:${port}/ssrf`, page)).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: 'ssrf_blocked',
    });
    expect(rx.hits('/ssrf')).toHaveLength(0);
  });
});

describe('GET /incidents/{id}/escalation', () => {
  it('with no policy in effect: policy null, no steps, a note', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id, {
      startedAt: new Date(Date.now() - 7.5 * 60_000),
    });
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
      note: 'No escalation policy was in effect when this incident opened (the monitor had none and the workspace had no default), so nothing pages.',
    });
  });

  it("the monitor's own policy wins over the workspace default", async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'default@example.test' }] }]);
    const own = await policyFor(
      ws.slug,
      [{ delayMinutes: 5, targets: [{ channel: 'email', target: 'own@example.test' }] }],
      { name: 'Payments' },
      false,
    );
    const monitor = await monitorIn(ws.id);
    const assigned = await assignPolicy(h.prisma, { monitor: monitor.id, policy: own.id }, h.config);
    expect(assigned).toMatchObject({ monitorId: monitor.id, policy: { id: own.id, isDefault: false } });
    const incident = await openIncident(ws.id, monitor.id);
    const state = await escalation(tokens.viewer, incident.id);
    expect(state).toMatchObject({
      policy: { id: own.id, name: 'Payments' },
      escalating: true,
      steps: [{ delayMinutes: 5, due: false, fired: false }],
      note: `Escalating: step 1 of 1 is due at ${new Date(incident.startedAt.getTime() + 5 * 60_000).toISOString()}.`,
    });
  });

  it('the OpenAPI document describes the delivery reason (beyond the spec) and a note that is always a string', async () => {
    const doc = (await request(h.app).get('/api/v1/openapi.json')).body;
    const { EscalationDelivery: delivery, EscalationState: state } = doc.components.schemas;
    expect(delivery.required).toEqual(expect.arrayContaining(['channel', 'target', 'status', 'sentAt', 'reason']));
    expect(delivery.properties.reason.type).toEqual(['string', 'null']);
    expect(delivery.properties.reason.description).toMatch(/^Beyond the spec/);
    expect(state.properties.note.type).toBe('string');
    expect(state.required).toContain('note');
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
    await h.prisma.monitorRegionState.create({
      data: { monitorId: monitor.id, region: 'local', consecutiveFailures: 4, failing: true },
    });
    const incident = await openIncident(ws.id, monitor.id);

    for (const action of ['acknowledge', 'resolve']) {
      const res = await request(h.app).post(`/api/v1/incidents/${incident.id}/${action}`).set(bearer(tokens.viewer));
      expect([action, res.status, res.body.error?.code]).toEqual([action, 403, 'forbidden']);
      // The role is checked before the body: a viewer who sends one is still told 403, not 400.
      const withBody = await request(h.app)
        .post(`/api/v1/incidents/${incident.id}/${action}`)
        .set(bearer(tokens.viewer))
        .send({ note: 'x' });
      expect([action, withBody.status, withBody.body.error?.code]).toEqual([action, 403, 'forbidden']);
    }
    for (const action of ['acknowledge', 'resolve']) {
      const bad = await request(h.app)
        .post(`/api/v1/incidents/${incident.id}/${action}`)
        .set(bearer(tokens.member))
        .send({ note: 'x' });
      expect([action, bad.status, bad.body.error?.details?.issues]).toEqual([
        action,
        400,
        [{ path: 'note', message: 'Unknown field' }],
      ]);
    }
    expect((await h.prisma.incident.findUnique({ where: { id: incident.id } }))!.status).toBe('open');

    const ack = await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member));
    expect(ack.status).toBe(200);
    expect(incidentRecordSchema.safeParse(ack.body.data).error).toBeUndefined();
    expect(ack.body.data).toMatchObject({
      id: incident.id,
      status: 'acknowledged',
      resolvedAt: null,
      acknowledgedAt: expect.any(String),
    });
    const again = await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.admin));
    expect([again.status, again.body.data]).toEqual([200, ack.body.data]);

    const resolved = await request(h.app).post(`/api/v1/incidents/${incident.id}/resolve`).set(bearer(tokens.member));
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({
      status: 'resolved',
      acknowledgedAt: ack.body.data.acknowledgedAt,
      resolvedAt: expect.any(String),
    });
    expect(await h.prisma.incident.findUnique({ where: { id: incident.id } })).toMatchObject({ openMonitorId: null });
    // The monitor's flap state is reset: a new incident needs openThreshold fresh failures.
    expect(await h.prisma.monitorRegionState.count({ where: { monitorId: monitor.id } })).toBe(0);
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
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'email', target: 'a@example.test' }] },
      { delayMinutes: 60, targets: [{ channel: 'email', target: 'b@example.test' }] },
    ]);
    const incident = await openIncident(ws.id, null);
    await scheduleIncidentLadder(deps, incident.id);
    await jobDone({ incidentId: incident.id, cycle: 0, position: 0 });
    const res = await request(h.app).post(`/api/v1/incidents/${incident.id}/resolve`).set(bearer(tokens.member));
    expect(res.status).toBe(200);
    expect(
      await h.deps.escalations!.queue.getJob(escalationJobId({ incidentId: incident.id, cycle: 0, position: 1 })),
    ).toBeUndefined();
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 1 })).toEqual({
      outcome: 'stopped',
      reason: 'incident resolved',
    });
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
  it('validates the policy JSON strictly and refuses webhook targets that the SSRF policy blocks', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const strict = { guard: createSsrfGuard(), encryption: h.config.encryption.current };
    const attempt = (json: unknown, guard = strict) =>
      createPolicy(
        h.prisma,
        { workspace: ws.slug, json: typeof json === 'string' ? json : JSON.stringify(json) },
        guard,
      ).then(
        () => null,
        (err: { code: string; details?: { issues: Array<{ path: string; message: string }> } }) => ({
          code: err.code,
          paths: err.details?.issues.map((i) => i.path),
        }),
      );
    const ok = { delayMinutes: 0, targets: [{ channel: 'email', target: 'a@example.test' }] };
    expect(await attempt('{nope')).toEqual({ code: 'invalid_request', paths: ['json'] });
    expect(await attempt({ name: 'x', steps: [] })).toEqual({ code: 'invalid_request', paths: ['json.steps'] });
    expect(await attempt({ name: 'x', steps: [ok], extra: 1 })).toEqual({
      code: 'invalid_request',
      paths: ['json.extra'],
    });
    expect(await attempt({ name: 'x', repeatCount: 11, steps: [ok] })).toEqual({
      code: 'invalid_request',
      paths: ['json.repeatCount'],
    });
    expect(await attempt({ name: 'x', runbook: 'r'.repeat(4001), steps: [ok] })).toEqual({
      code: 'invalid_request',
      paths: ['json.runbook'],
    });
    expect(await attempt({ name: 'x', steps: [{ ...ok, delayMinutes: 10_081 }] })).toEqual({
      code: 'invalid_request',
      paths: ['json.steps[0].delayMinutes'],
    });
    expect(await attempt({ name: 'x', steps: [{ ...ok, delayMinutes: 10 }, ok] })).toEqual({
      code: 'invalid_request',
      paths: ['json.steps[1].delayMinutes'],
    });
    expect(await attempt({ name: 'x', steps: [{ ...ok, minImpact: 'huge' }] })).toEqual({
      code: 'invalid_request',
      paths: ['json.steps[0].minImpact'],
    });
    expect(
      await attempt({
        name: 'x',
        steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'not-an-address' }] }],
      }),
    ).toEqual({
      code: 'invalid_request',
      paths: ['json.steps[0].targets[0].target'],
    });
    expect(
      await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: [{ channel: 'pager', target: 'x' }] }] }),
    ).toMatchObject({ code: 'invalid_request' });
    expect(
      await attempt({
        name: 'x',
        steps: [{ delayMinutes: 0, targets: Array.from({ length: 11 }, () => ok.targets[0]) }],
      }),
    ).toEqual({
      code: 'invalid_request',
      paths: ['json.steps[0].targets'],
    });
    expect(
      await attempt({
        name: 'x',
        steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: 'ftp://example.com/x' }] }],
      }),
    ).toEqual({ code: 'invalid_request', paths: ['json.steps[0].targets[0].target'] });
    for (const target of [
      'http://127.0.0.1:9/hook',
      'http://169.254.169.254/latest',
      'https://[::1]/x',
      'http://2130706433/',
    ]) {
      expect([
        target,
        await attempt({ name: 'x', steps: [{ delayMinutes: 0, targets: [{ channel: 'slack', target }] }] }),
      ]).toEqual([target, { code: 'invalid_request', paths: ['json.steps[0].targets[0].target'] }]);
    }
    // The same loopback target passes where the deployment allows it (ALLOWED_TARGET_CIDRS).
    expect(
      await attempt(
        {
          name: 'x',
          steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: 'http://127.0.0.1:9/hook' }] }],
        },
        { guard: h.deps.guard, encryption: h.config.encryption.current },
      ),
    ).toBeNull();
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: ws.id } })).toBe(1);
  });

  it('assign refuses a policy of another workspace', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const policy = await policyFor(a.ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'email', target: 'a@example.test' }] },
    ]);
    const monitor = await monitorIn(b.ws.id);
    await expect(assignPolicy(h.prisma, { monitor: monitor.id, policy: policy.id }, h.config)).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(
      assignPolicy(h.prisma, { monitor: monitor.id, policy: '00000000-0000-4000-8000-000000000000' }, h.config),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await assignPolicy(h.prisma, { monitor: monitor.id, policy: 'none' }, h.config)).toMatchObject({
      policy: null,
    });
  });

  it('runs from the CLI: policy create --default prints the record, assign and signing-secret print JSON', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const monitor = await monitorIn(ws.id);
    const admin = async (...args: string[]) => {
      const out = await adminCli(args, { ALLOWED_TARGET_CIDRS: '' });
      expect([out.code, out.stderr]).toEqual([0, '']);
      return JSON.parse(out.stdout);
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
      steps: [
        {
          position: 0,
          delayMinutes: 0,
          minImpact: 'major',
          targets: [{ channel: 'email', display: 'lead@example.test' }],
        },
      ],
    });
    expect((await h.prisma.workspace.findUnique({ where: { id: ws.id } }))!.defaultEscalationPolicyId).toBe(created.id);
    expect(await admin('policy', 'assign', '--monitor', monitor.id, '--policy', created.id)).toMatchObject({
      monitorId: monitor.id,
      policy: { id: created.id },
    });
    const secret = await admin('policy', 'signing-secret', '--workspace', ws.slug);
    expect(secret).toMatchObject({
      workspaceId: ws.id,
      algorithm: 'HMAC-SHA256',
      signatureHeader: 'Statusvane-Signature',
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  }, 30_000);
});

describe('the ladder sweeper', () => {
  it('gives an open incident whose jobs were never added (or were lost with Redis data) its ladder back', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/swept/${ws.id}` }] },
    ]);
    const monitor = await monitorIn(ws.id);
    // Opened two minutes ago, and the opening hook never ran.
    const incident = await openIncident(ws.id, monitor.id, { startedAt: new Date(Date.now() - 120_000) });
    const acked = await openIncident(ws.id, null, {
      startedAt: new Date(Date.now() - 120_000),
      status: 'acknowledged',
      acknowledgedAt: new Date(),
    });
    const young = await openIncident(ws.id, null, { startedAt: new Date() });

    const report = await ensureOpenLadders(deps);
    expect(report.scheduled).toBeGreaterThanOrEqual(1);
    await waitFor(async () => rx.hits(`/swept/${ws.id}`).length === 1, 10_000, 'the swept page');
    // The outcome is recorded once the receiver has answered.
    expect(
      await waitFor(async () => {
        const statuses = (await rowsOf(incident.id)).map((r) => r.status);
        return statuses.includes('pending') ? null : statuses;
      }),
    ).toEqual(['sent']);
    // Sweeping again pages nobody twice; acknowledged and brand-new incidents are left alone.
    await ensureOpenLadders(deps);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.hits(`/swept/${ws.id}`)).toHaveLength(1);
    expect(await rowsOf(acked.id)).toHaveLength(0);
    expect(await rowsOf(young.id)).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Time through an injected clock: one clock for the engine, the deliverer and the API. Step jobs are added to a
// queue no worker reads (their delays are checked there); the test runs each step itself at the moment it picks.
// ---------------------------------------------------------------------------------------------------------------

describe('time through an injected clock', () => {
  const MIN = 60_000;
  const clock = { now: new Date() };
  let idle: EscalationScheduler;
  let clocked: EscalationDeps;
  let clockApp: express.Express;
  let t0: Date;
  const at = (minutes: number) => new Date(t0.getTime() + minutes * MIN);
  const setClock = (minutes: number) => void (clock.now = at(minutes));

  beforeAll(() => {
    idle = new EscalationScheduler(h.redis, `${h.queuePrefix}-idle`);
    const deliverer = createDeliverer({
      guard: h.deps.guard,
      signingSecret: workspaceSigningSecrets(h.prisma, h.config.encryption.current.key),
      smtp: null,
      timeoutMs: 2000,
      retry: FAST_RETRY,
      now: () => clock.now,
    });
    // No maintenanceRecheckMs: the production default (60 s) is what these tests measure.
    clocked = {
      prisma: h.prisma,
      scheduler: idle,
      deliverer,
      logger,
      keyring: h.config.encryption,
      now: () => clock.now,
    };
    clockApp = createApp({ ...h.deps, clock: () => clock.now });
  });
  afterAll(async () => {
    clocked.deliverer.close();
    await idle.queue.obliterate({ force: true });
    await idle.close();
  });

  /** An incident that started on a whole second a moment ago, so t0 + n minutes is exact in every record. */
  async function openAtT0(workspaceId: string, monitorId: string | null) {
    t0 = new Date(Math.floor(Date.now() / 1000) * 1000);
    setClock(0);
    return openIncident(workspaceId, monitorId, { startedAt: t0 });
  }
  async function recordAt(token: string, incidentId: string) {
    const res = await request(clockApp).get(`/api/v1/incidents/${incidentId}/escalation`).set(bearer(token));
    expect(res.status).toBe(200);
    expect(escalationStateSchema.safeParse(res.body.data).error).toBeUndefined();
    return res.body.data;
  }
  const delayOf = async (incidentId: string, cycle: number, position: number) =>
    (await idle.queue.getJob(escalationJobId({ incidentId, cycle, position })))?.opts.delay;
  /** Leaves no open incident behind for other tests' sweeps (which run on the real clock). */
  const closeIncident = (id: string) =>
    h.prisma.incident.update({
      where: { id },
      data: { status: 'resolved', resolvedAt: new Date(), openMonitorId: null },
    });

  it('due, fired, firedAt, elapsedMinutes, not-due deferrals and repeat cycles follow the clock (delays of 5 and 10 minutes)', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(
      ws.slug,
      [
        { delayMinutes: 5, targets: [{ channel: 'webhook', target: `${rx.base}/clock-a/${ws.id}` }] },
        { delayMinutes: 10, targets: [{ channel: 'webhook', target: `${rx.base}/clock-b/${ws.id}` }] },
      ],
      { repeatCount: 1 },
    );
    const incident = await openAtT0(ws.id, (await monitorIn(ws.id)).id);
    const step = (cycle: number, position: number) =>
      runEscalationStep(clocked, { incidentId: incident.id, cycle, position });
    const dueFired = (r: { steps: Array<{ due: boolean; fired: boolean; firedAt: string | null }> }) =>
      r.steps.map((s) => [s.due, s.fired, s.firedAt]);

    expect(await scheduleIncidentLadder(clocked, incident.id)).toEqual({ scheduled: 2 });
    expect([await delayOf(incident.id, 0, 0), await delayOf(incident.id, 0, 1)]).toEqual([5 * MIN, 10 * MIN]);

    setClock(2.5);
    expect(await step(0, 0)).toEqual({ outcome: 'deferred', reason: 'not due yet', until: at(5) });
    let r = await recordAt(tokens.viewer, incident.id);
    expect(r).toMatchObject({
      escalating: true,
      elapsedMinutes: 2,
      note: `Escalating: step 1 of 2 is due at ${at(5).toISOString()}.`,
    });
    expect(dueFired(r)).toEqual([
      [false, false, null],
      [false, false, null],
    ]);

    setClock(5);
    expect(await step(0, 0)).toEqual({
      outcome: 'fired',
      sent: 1,
      failed: 0,
      skipped: 0,
      duplicates: 0,
      nextCycleScheduled: false,
    });
    r = await recordAt(tokens.viewer, incident.id);
    expect(r).toMatchObject({ elapsedMinutes: 5, note: `Escalating: step 2 of 2 is due at ${at(10).toISOString()}.` });
    expect(dueFired(r)).toEqual([
      [true, true, at(5).toISOString()],
      [false, false, null],
    ]);
    expect(r.steps[0].deliveries).toEqual([
      {
        channel: 'webhook',
        target: `${rx.base}/…`,
        status: 'sent',
        sentAt: at(5).toISOString(),
        reason: null,
        ...NO_PERSON,
      },
    ]);

    clock.now = new Date(at(10).getTime() - 1000);
    expect(await step(0, 1)).toEqual({ outcome: 'deferred', reason: 'not due yet', until: at(10) });
    setClock(10);
    r = await recordAt(tokens.viewer, incident.id);
    expect(dueFired(r)).toEqual([
      [true, true, at(5).toISOString()],
      [true, false, null],
    ]);
    expect(r.note).toBe(`Escalating: step 2 of 2 came due at ${at(10).toISOString()} and is paging now.`);

    // Step 2 fires a minute late (a slow worker): the repeat cycle is anchored on when it fired, 11, not on 10.
    setClock(11);
    expect(await step(0, 1)).toMatchObject({ outcome: 'fired', sent: 1, nextCycleScheduled: true });
    expect([await delayOf(incident.id, 1, 0), await delayOf(incident.id, 1, 1)]).toEqual([5 * MIN, 10 * MIN]);
    setClock(12);
    r = await recordAt(tokens.viewer, incident.id);
    expect(r).toMatchObject({
      escalating: true,
      elapsedMinutes: 12,
      note: `Escalating (repeat 1 of 1): step 1 of 2 is due at ${at(16).toISOString()}.`,
    });
    // The new cycle: nothing due yet; both steps have fired (in cycle 0).
    expect(dueFired(r)).toEqual([
      [false, true, at(5).toISOString()],
      [false, true, at(11).toISOString()],
    ]);
    expect(await step(1, 0)).toEqual({ outcome: 'deferred', reason: 'not due yet', until: at(16) });

    setClock(16);
    expect(await step(1, 0)).toMatchObject({ outcome: 'fired', sent: 1 });
    setClock(21);
    expect(await step(1, 1)).toMatchObject({ outcome: 'fired', sent: 1, nextCycleScheduled: false });
    setClock(30);
    r = await recordAt(tokens.viewer, incident.id);
    expect(r).toMatchObject({
      escalating: false,
      elapsedMinutes: 30,
      note: 'The ladder has run all 2 cycle(s): nothing more will page.',
    });
    expect(dueFired(r)).toEqual([
      [true, true, at(16).toISOString()],
      [true, true, at(21).toISOString()],
    ]);
    expect(r.steps.map((s: { deliveries: Array<{ sentAt: string }> }) => s.deliveries.map((d) => d.sentAt))).toEqual([
      [at(5).toISOString(), at(16).toISOString()],
      [at(11).toISOString(), at(21).toISOString()],
    ]);
    expect(
      rx.hits(`/clock-a/${ws.id}`).map((x) => [JSON.parse(x.body).step.cycle, JSON.parse(x.body).firedAt]),
    ).toEqual([
      [0, at(5).toISOString()],
      [1, at(16).toISOString()],
    ]);
    expect(rx.hits(`/clock-b/${ws.id}`)).toHaveLength(2);
    await closeIncident(incident.id);
  });

  it('acknowledging and resolving through the API stop the ladder at the clock time; elapsedMinutes stops at the resolution', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/ack-a/${ws.id}` }] },
      { delayMinutes: 3, targets: [{ channel: 'webhook', target: `${rx.base}/ack-b/${ws.id}` }] },
    ]);
    const incident = await openAtT0(ws.id, null);
    expect(await runEscalationStep(clocked, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      sent: 1,
    });

    setClock(2);
    const ack = await request(clockApp).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member));
    expect([ack.status, ack.body.data.acknowledgedAt]).toEqual([200, at(2).toISOString()]);
    setClock(4);
    expect(await runEscalationStep(clocked, { incidentId: incident.id, cycle: 0, position: 1 })).toEqual({
      outcome: 'stopped',
      reason: 'incident acknowledged',
    });
    let r = await recordAt(tokens.viewer, incident.id);
    // The ladder's clock stopped at 2: step 2 (due at 3) is not shown due. The incident's own clock runs on.
    expect(r).toMatchObject({
      status: 'acknowledged',
      escalating: false,
      elapsedMinutes: 4,
      note: `Acknowledged at ${at(2).toISOString()}: the ladder has stopped.`,
    });
    expect(r.steps.map((s: { due: boolean }) => s.due)).toEqual([true, false]);

    setClock(6);
    const resolved = await request(clockApp)
      .post(`/api/v1/incidents/${incident.id}/resolve`)
      .set(bearer(tokens.member));
    expect([resolved.status, resolved.body.data.resolvedAt]).toEqual([200, at(6).toISOString()]);
    setClock(60);
    r = await recordAt(tokens.viewer, incident.id);
    expect(r).toMatchObject({
      status: 'resolved',
      elapsedMinutes: 6,
      note: `Resolved at ${at(6).toISOString()}: the ladder has stopped.`,
    });
    expect(rx.hits(`/ack-b/${ws.id}`)).toHaveLength(0);
  });

  it('a maintenance deferral re-checks the window every minute, so a window completed early resumes paging within a minute', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/mw/${ws.id}` }] },
    ]);
    const monitor = await monitorIn(ws.id);
    const incident = await openAtT0(ws.id, monitor.id);
    const window = await h.prisma.maintenanceWindow.create({
      data: { workspaceId: ws.id, title: 'deploy', startsAt: at(-1), endsAt: at(180) },
    });
    const step = () => runEscalationStep(clocked, { incidentId: incident.id, cycle: 0, position: 0 });

    // A three-hour window: the step sleeps a minute at a time, not three hours.
    expect(await step()).toEqual({ outcome: 'deferred', reason: 'maintenance', until: at(1) });
    setClock(1);
    expect(await step()).toEqual({ outcome: 'deferred', reason: 'maintenance', until: at(2) });
    // Completed early, at 1.5 (what PATCH {status: complete} does: endsAt = now).
    await h.prisma.maintenanceWindow.update({ where: { id: window.id }, data: { endsAt: at(1.5) } });
    setClock(2);
    expect(await step()).toMatchObject({ outcome: 'fired', sent: 1 });
    expect(rx.hits(`/mw/${ws.id}`)).toHaveLength(1);

    await closeIncident(incident.id);

    // A window that ends sooner than the re-check: the step waits exactly until its end.
    const other = await makeWorkspace(h.prisma);
    await policyFor(other.ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/mw-short/${other.ws.id}` }] },
    ]);
    const second = await openAtT0(other.ws.id, (await monitorIn(other.ws.id)).id);
    await h.prisma.maintenanceWindow.create({
      data: { workspaceId: other.ws.id, title: 'short', startsAt: at(-1), endsAt: at(0.25) },
    });
    expect(await runEscalationStep(clocked, { incidentId: second.id, cycle: 0, position: 0 })).toEqual({
      outcome: 'deferred',
      reason: 'maintenance',
      until: at(0.25),
    });
    setClock(0.25);
    expect(await runEscalationStep(clocked, { incidentId: second.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      sent: 1,
    });
    await closeIncident(second.id);
  });

  it('the policy is pinned when the incident opens: re-assigning mid-incident changes nothing for it, and every delivery stays listed', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const first = await policyFor(
      ws.slug,
      [
        { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/pin-a0/${ws.id}` }] },
        { delayMinutes: 5, targets: [{ channel: 'webhook', target: `${rx.base}/pin-a1/${ws.id}` }] },
      ],
      { name: 'First' },
    );
    const monitor = await monitorIn(ws.id);
    const incident = await openAtT0(ws.id, monitor.id);
    expect(incident.escalationPolicyId).toBe(first.id);
    expect(await runEscalationStep(clocked, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      sent: 1,
    });

    // Mid-incident: a new workspace default, and the monitor gets its own policy (different steps, same positions).
    const second = await policyFor(
      ws.slug,
      [
        { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/pin-b0/${ws.id}` }] },
        { delayMinutes: 5, targets: [{ channel: 'webhook', target: `${rx.base}/pin-b1/${ws.id}` }] },
      ],
      { name: 'Second' },
    );
    await assignPolicy(h.prisma, { monitor: monitor.id, policy: second.id }, h.config);

    setClock(1);
    let r = await recordAt(tokens.viewer, incident.id);
    expect(r.policy).toMatchObject({ id: first.id, name: 'First' });
    expect(r.steps.map((s: { stepId: string }) => s.stepId)).toEqual(first.steps.map((s: { id: string }) => s.id));
    expect(r.steps[0]).toMatchObject({ fired: true, deliveries: [{ status: 'sent' }] });
    // Step 1 again pages nobody twice, and the new policy's step 1 (same position) does not fire in its place.
    expect(await runEscalationStep(clocked, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      sent: 0,
      duplicates: 1,
    });
    setClock(5);
    expect(await runEscalationStep(clocked, { incidentId: incident.id, cycle: 0, position: 1 })).toMatchObject({
      outcome: 'fired',
      sent: 1,
    });
    expect([
      rx.hits(`/pin-a0/${ws.id}`).length,
      rx.hits(`/pin-a1/${ws.id}`).length,
      rx.hits(`/pin-b0/${ws.id}`).length,
      rx.hits(`/pin-b1/${ws.id}`).length,
    ]).toEqual([1, 1, 0, 0]);
    r = await recordAt(tokens.viewer, incident.id);
    expect(r).toMatchObject({
      escalating: false,
      steps: [{ fired: true }, { fired: true, firedAt: at(5).toISOString() }],
    });

    // A row of a step outside the pinned policy (left by a re-assignment before policies were pinned) is still shown,
    // under the step at its position.
    const foreign = second.steps[0]!;
    await h.prisma.escalationDelivery.create({
      data: {
        incidentId: incident.id,
        stepId: foreign.id,
        targetId: foreign.targets[0]!.id,
        channel: 'webhook',
        target: `${rx.base}/…`,
        status: 'failed',
        reason: 'http_500',
        createdAt: at(0.5),
      },
    });
    r = await recordAt(tokens.viewer, incident.id);
    expect(r.steps[0].deliveries.map((d: { status: string; reason: string | null }) => [d.status, d.reason])).toEqual([
      ['sent', null],
      ['failed', 'http_500'],
    ]);
    expect(r.steps[0]).toMatchObject({ fired: true, firedAt: at(0).toISOString() });

    // The next incident of the monitor opens under its own policy now.
    await closeIncident(incident.id);
    const next = await openAtT0(ws.id, monitor.id);
    expect(next.escalationPolicyId).toBe(second.id);
    expect((await recordAt(tokens.viewer, next.id)).policy).toMatchObject({ id: second.id, name: 'Second' });
    await closeIncident(next.id);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Every stored page is sent or accounted for
// ---------------------------------------------------------------------------------------------------------------

describe('sending does not depend on the queue, and stored pages are never lost', () => {
  it('pages go out even when adding the next cycle fails; the sweeper adds that cycle', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(
      ws.slug,
      [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/noq/${ws.id}` }] }],
      { repeatCount: 1 },
    );
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id, {
      startedAt: new Date(Date.now() - 120_000),
    });
    // The shared worker's queue, whose next add fails as with Redis away.
    const flaky = new EscalationScheduler(h.redis, h.queuePrefix);
    const add = flaky.queue.add.bind(flaky.queue);
    let failures = 1;
    flaky.queue.add = (async (...args: Parameters<typeof add>) => {
      if (failures-- > 0) throw new Error('Connection is closed.');
      return add(...args);
    }) as typeof flaky.queue.add;
    try {
      const outcome = await runEscalationStep(
        { ...deps, scheduler: flaky },
        { incidentId: incident.id, cycle: 0, position: 0 },
      );
      expect(failures).toBe(0);
      expect(outcome).toEqual({
        outcome: 'fired',
        sent: 1,
        failed: 0,
        skipped: 0,
        duplicates: 0,
        nextCycleScheduled: false,
      });
      expect(rx.hits(`/noq/${ws.id}`)).toHaveLength(1);
      expect((await rowsOf(incident.id)).map((d) => [d.cycle, d.status])).toEqual([[0, 'sent']]);
      expect(
        await h.deps.escalations!.queue.getJob(escalationJobId({ incidentId: incident.id, cycle: 1, position: 0 })),
      ).toBeUndefined();

      // The sweeper adds the current cycle (1, anchored on cycle 0's fire time), and the worker pages it.
      await ensureOpenLadders(deps);
      await waitFor(async () => rx.hits(`/noq/${ws.id}`).length === 2, 10_000, 'the repeat page');
      expect(rx.hits(`/noq/${ws.id}`).map((x) => JSON.parse(x.body).step.cycle)).toEqual([0, 1]);
    } finally {
      await flaky.close();
    }
  });

  it('a retried job sends the rows of its step that an earlier run stored and never claimed; a claimed row is never sent again', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const policy = await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        targets: [
          { channel: 'webhook', target: `${rx.base}/retry-a/${ws.id}` },
          { channel: 'webhook', target: `${rx.base}/retry-b/${ws.id}` },
        ],
      },
    ]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id);
    const [a, b] = policy.steps[0]!.targets;
    // What a first run leaves when it dies after storing the rows: target a unclaimed, target b claimed mid-send.
    const firedAt = new Date(Date.now() - 1000);
    await h.prisma.escalationDelivery.createMany({
      data: [
        {
          incidentId: incident.id,
          stepId: policy.steps[0]!.id,
          targetId: a!.id,
          channel: 'webhook',
          target: `${rx.base}/…`,
          status: 'pending',
          createdAt: firedAt,
        },
        {
          incidentId: incident.id,
          stepId: policy.steps[0]!.id,
          targetId: b!.id,
          channel: 'webhook',
          target: `${rx.base}/…`,
          status: 'pending',
          createdAt: firedAt,
          claimedAt: firedAt,
        },
      ],
    });
    const outcome = await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 });
    expect(outcome).toEqual({
      outcome: 'fired',
      sent: 1,
      failed: 0,
      skipped: 0,
      duplicates: 2,
      nextCycleScheduled: false,
    });
    expect([rx.hits(`/retry-a/${ws.id}`).length, rx.hits(`/retry-b/${ws.id}`).length]).toEqual([1, 0]);
    // The page says when the step fired, not when the retry ran.
    expect(JSON.parse(rx.hits(`/retry-a/${ws.id}`)[0]!.body).firedAt).toBe(firedAt.toISOString());
    expect((await rowsOf(incident.id)).map((d) => d.status)).toEqual(['sent', 'pending']);
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      sent: 0,
      duplicates: 2,
    });
    expect(rx.hits(`/retry-a/${ws.id}`)).toHaveLength(1);
  });

  it('the sweeper fails pending rows claimed long ago (worker_lost), has unclaimed ones sent, and closes those of stopped incidents', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const policy = await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        targets: [
          { channel: 'webhook', target: `${rx.base}/stale-a/${ws.id}` },
          { channel: 'webhook', target: `${rx.base}/stale-b/${ws.id}` },
        ],
      },
    ]);
    const step = policy.steps[0]!;
    const [a, b] = step.targets;
    const row = (incidentId: string, targetId: string, createdAt: Date, claimedAt: Date | null = null) => ({
      incidentId,
      stepId: step.id,
      targetId,
      channel: 'webhook' as const,
      target: `${rx.base}/…`,
      status: 'pending' as const,
      createdAt,
      claimedAt,
    });
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    const lost = await openIncident(ws.id, null, { startedAt: tenMinutesAgo });
    const stopped = await openIncident(ws.id, null, {
      startedAt: tenMinutesAgo,
      status: 'resolved',
      resolvedAt: new Date(),
    });
    // Left by workers that died ten minutes ago: one mid-send (claimed), one between storing and sending.
    await h.prisma.escalationDelivery.createMany({
      data: [
        row(lost.id, a!.id, tenMinutesAgo, tenMinutesAgo),
        row(lost.id, b!.id, tenMinutesAgo),
        row(stopped.id, a!.id, tenMinutesAgo),
      ],
    });
    // In flight right now: left alone.
    const fresh = await openIncident(ws.id, null);
    await h.prisma.escalationDelivery.create({ data: row(fresh.id, a!.id, new Date(), new Date()) });

    const report = await reconcileStaleDeliveries(deps);
    expect(report.lost).toBeGreaterThanOrEqual(1);
    expect(report.rerun).toBeGreaterThanOrEqual(1);
    expect(report.stopped).toBeGreaterThanOrEqual(1);
    // The unclaimed row of the open incident: its step job runs again (on the shared worker) and sends it.
    await waitFor(async () => rx.hits(`/stale-b/${ws.id}`).length === 1, 10_000, 'the unclaimed page');
    const byTarget = async (incidentId: string) =>
      (await rowsOf(incidentId)).map((d) => [d.targetId === a!.id ? 'a' : 'b', d.status, d.reason]);
    expect(
      await waitFor(async () => {
        const rows = await byTarget(lost.id);
        return rows.every((r) => r[1] !== 'pending') ? rows : null;
      }),
    ).toEqual([
      ['a', 'failed', 'worker_lost'],
      ['b', 'sent', null],
    ]);
    expect(rx.hits(`/stale-a/${ws.id}`)).toHaveLength(0);
    expect(await byTarget(stopped.id)).toEqual([['a', 'failed', 'stopped_before_send']]);
    expect(await byTarget(fresh.id)).toEqual([['a', 'pending', null]]);
    // And the record says why.
    const state = await escalation(tokens.viewer, lost.id);
    expect(
      state.steps[0].deliveries.map((d: { status: string; reason: string | null }) => [d.status, d.reason]),
    ).toEqual([
      ['failed', 'worker_lost'],
      ['sent', null],
    ]);
    await h.prisma.incident.updateMany({
      where: { id: { in: [lost.id, fresh.id] } },
      data: { status: 'resolved', resolvedAt: new Date() },
    });
  });
});

describe('the sweeper and failed or numerous jobs', () => {
  it('a step job whose retries ran out (failed, its id kept) is retried by the sweeper and pages', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/recovered-job/${ws.id}` }] },
    ]);
    const incident = await openIncident(ws.id, (await monitorIn(ws.id)).id, {
      startedAt: new Date(Date.now() - 120_000),
    });
    const prefix = `${h.queuePrefix}-fj`;
    const scheduler = new EscalationScheduler(h.redis, prefix);
    const fdeps = { ...deps, scheduler };
    const connection = createWorkerRedis(h.config.redis);
    connection.on('error', () => undefined);
    const id = escalationJobId({ incidentId: incident.id, cycle: 0, position: 0 });
    // Two stand-ins on a queue of their own, not the runtime's worker: a worker whose every run throws as during a
    // long database outage, until BullMQ gives up on the job; then one that runs only this incident's jobs.
    const broken = new Worker(
      ESCALATION_QUEUE,
      async () => {
        throw new UnrecoverableError('database unreachable');
      },
      { connection, prefix },
    );
    let healthy: Worker | null = null;
    try {
      await scheduleIncidentLadder(fdeps, incident.id);
      await waitFor(async () => (await scheduler.queue.getJobState(id)) === 'failed', 10_000, 'the failed job');
      await broken.close();
      const job = await scheduler.queue.getJob(id);
      expect(job!.opts.attempts).toBe(10);

      // Adding the job again is a no-op (its id is kept for a week): the opening hook cannot bring it back.
      await scheduleIncidentLadder(fdeps, incident.id);
      expect(await scheduler.queue.getJobState(id)).toBe('failed');

      // The sweeper can: it retries the failed job, with its attempts reset, and a healthy worker pages.
      healthy = new Worker(
        ESCALATION_QUEUE,
        // Only this incident's jobs: the sweep also adds other open incidents' ladders to this queue.
        (j: Job, token?: string) =>
          j.data.incidentId === incident.id ? escalationProcessor(fdeps)(j, token) : Promise.resolve(null),
        { connection, prefix },
      );
      const report = await ensureOpenLadders(fdeps);
      expect(report.recovered).toBeGreaterThanOrEqual(1);
      await waitFor(async () => rx.hits(`/recovered-job/${ws.id}`).length === 1, 10_000, 'the page after recovery');
      expect(
        await waitFor(async () => ((await scheduler.queue.getJobState(id)) === 'completed' ? 'completed' : null)),
      ).toBe('completed');
      expect((await rowsOf(incident.id)).map((d) => d.status)).toEqual(['sent']);
    } finally {
      await broken.close();
      await healthy?.close();
      connection.disconnect();
      await scheduler.queue.obliterate({ force: true });
      await scheduler.close();
      await h.prisma.incident.update({
        where: { id: incident.id },
        data: { status: 'resolved', resolvedAt: new Date(), openMonitorId: null },
      });
    }
  });

  it('visits every open incident, a batch at a time', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    await policyFor(ws.slug, [{ delayMinutes: 30, targets: [{ channel: 'email', target: 'batch@example.test' }] }]);
    const incidents = [];
    for (let i = 0; i < 5; i++)
      incidents.push(await openIncident(ws.id, null, { startedAt: new Date(Date.now() - (10 + i) * 60_000) }));
    const idle = new EscalationScheduler(h.redis, `${h.queuePrefix}-batch`);
    try {
      // Batches of 2: a sweep that stopped after its first batch would leave at least three of these without jobs.
      const report = await ensureOpenLadders({ ...deps, scheduler: idle }, { batch: 2 });
      expect(report.incidents).toBeGreaterThanOrEqual(5);
      const states = await Promise.all(
        incidents.map((x) => idle.queue.getJobState(escalationJobId({ incidentId: x.id, cycle: 0, position: 0 }))),
      );
      expect(states).toEqual(['delayed', 'delayed', 'delayed', 'delayed', 'delayed']);
    } finally {
      await idle.queue.obliterate({ force: true });
      await idle.close();
      await h.prisma.incident.updateMany({
        where: { id: { in: incidents.map((x) => x.id) } },
        data: { status: 'resolved', resolvedAt: new Date() },
      });
    }
  });
});

describe('targets are encrypted at rest', () => {
  it('stores ciphertext and a display form, never the URL; plaintext rows from before are encrypted by the sweeper and still page', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const hook = `${rx.base}/enc/${ws.id}?token=hunter2-${ws.id}`;
    const policy = await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        targets: [
          { channel: 'webhook', target: hook },
          { channel: 'email', target: 'enc@example.test' },
        ],
      },
    ]);
    const stored = () =>
      h.prisma.escalationTarget.findMany({ where: { step: { policyId: policy.id } }, orderBy: { position: 'asc' } });
    const rows = await stored();
    expect(rows.map((t) => [t.display, t.legacyTarget, t.encKeyId])).toEqual([
      [`${rx.base}/…`, null, h.config.encryption.current.id],
      ['enc@example.test', null, h.config.encryption.current.id],
    ]);
    expect(JSON.stringify(rows)).not.toContain('hunter2');
    expect(rows.map((t) => openTarget(t, h.config.encryption))).toEqual([hook, 'enc@example.test']);
    // The database refuses a new plaintext target.
    await expect(
      h.prisma
        .$executeRaw`INSERT INTO escalation_targets (id, "stepId", position, channel, display, target) VALUES (gen_random_uuid(), ${policy.steps[0]!.id}::uuid, 9, 'webhook', 'x', ${hook})`,
    ).rejects.toThrow(/never as plaintext/);

    // A row as it was before encryption at rest (the migration leaves the plaintext until a worker has the key).
    await h.prisma.escalationTarget.update({
      where: { id: rows[0]!.id },
      data: { legacyTarget: hook, targetEnc: null, encKeyId: null },
    });
    const report = await sweepEscalations(deps);
    expect(report.encrypted).toBeGreaterThanOrEqual(1);
    const after = (await stored())[0]!;
    expect([after.legacyTarget, after.encKeyId, after.display]).toEqual([
      null,
      h.config.encryption.current.id,
      `${rx.base}/…`,
    ]);
    expect(openTarget(after, h.config.encryption)).toBe(hook);

    const incident = await openIncident(ws.id, null);
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      sent: 2,
    });
    expect(rx.hits(`/enc/${ws.id}?token=hunter2-${ws.id}`)).toHaveLength(1);
    const deliveries = await rowsOf(incident.id);
    expect(deliveries.map((d) => d.target)).toEqual([`${rx.base}/…`, 'enc@example.test']);
    expect(JSON.stringify(await escalation(tokens.viewer, incident.id))).not.toContain('hunter2');
    await h.prisma.incident.update({
      where: { id: incident.id },
      data: { status: 'resolved', resolvedAt: new Date() },
    });
  });
});
