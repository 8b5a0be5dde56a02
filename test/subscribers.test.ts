// Status page subscribers: subscribe (email double opt-in, webhooks), confirm and unsubscribe links, the sweep
// that turns public events into deliveries, and delivery through BullMQ to a real SMTP server and HTTP receiver.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSsrfGuard, SubscriberQueue, verifyWebhookSignature, type PrismaClient } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import {
  SUBSCRIBE_PER_EMAIL_PER_HOUR,
  SUBSCRIBE_PER_IP_PER_HOUR,
} from '../apps/api/src/routes/public-pages/subscriptions.handler.js';
import { arrangeStatusPage, setStatusPagePassword } from '../apps/api/src/admin/status-page-commands.js';
import { createEmailSender } from '@statusvane/shared';
import { deliverSubscriberMessage, type SubscriberDeliveryDeps } from '../apps/worker/src/subscribers/deliver.js';
import { sweepSubscribers } from '../apps/worker/src/subscribers/sweep.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startSmtp } from './support/smtp.js';
import { startTarget, type Target } from './support/targets.js';
import { startRuntime } from './support/worker-harness.js';

const MIN = 60_000;

let h: Harness;
let app: ReturnType<typeof createApp>;
let queue: SubscriberQueue;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let rx: Target;
let deliveryDeps: SubscriberDeliveryDeps;

beforeAll(async () => {
  // Loopback targets allowed (the webhook receiver); X-Forwarded-For believed from loopback, so each test is its own
  // client address for the per-IP limit.
  // Mail through the configured SMTP server, as in production.
  smtp = await startSmtp();
  h = makeHarness({
    ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
    TRUST_PROXY: 'loopback',
    SMTP_URL: smtp.url,
    SMTP_FROM: 'Status <status@statusvane.test>',
  });
  queue = new SubscriberQueue(h.redis, h.queuePrefix);
  app = createApp({ ...h.deps, subscribers: queue });
  rx = await startTarget();
  deliveryDeps = {
    prisma: h.prisma,
    keyring: h.config.encryption,
    guard: h.deps.guard,
    email: createEmailSender(h.config.smtp!),
    publicBaseUrl: h.config.publicBaseUrl,
    timeoutMs: 3000,
  };
});
afterAll(async () => {
  deliveryDeps?.email?.close();
  await queue?.queue.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await rx?.close();
  await smtp?.close();
  await h?.close();
});

const clientIp = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

async function monitor(w: Workspace, name: string) {
  const res = await request(app).post('/api/v1/monitors').set(bearer(w.tokens.owner)).send(makeMonitorInput({ name }));
  expect(res.status).toBe(201);
  return { id: res.body.data.id as string, componentId: res.body.data.componentId as string };
}

async function setup() {
  const w = await makeWorkspace(h.prisma);
  const api = await monitor(w, 'API');
  const web = await monitor(w, 'Web');
  const created = await request(app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('subs'), name: 'Acme' });
  expect(created.status).toBe(201);
  return { w, api, web, page: created.body.data as { id: string; slug: string; url: string } };
}

/** setup(), the page showing both monitors' components in one group. */
async function setupShowingBoth() {
  const s = await setup();
  await arrangeStatusPage(h.prisma, {
    id: s.page.id,
    json: JSON.stringify([{ name: 'All', componentIds: [s.api.componentId, s.web.componentId] }]),
  });
  return s;
}

const post = (slug: string, body: Record<string, unknown>, ip = clientIp()) =>
  request(app).post(`/status/${slug}/subscribe`).set('X-Forwarded-For', ip).send(body);

const email = () => `${uniq('reader')}@example.test`;
const mailsTo = (addr: string) => smtp.mails.filter((m) => m.to.includes(addr));
/** Quoted-printable soft line breaks joined, so links can be read from the raw mail. */
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const linkIn = (raw: string, action: 'confirm' | 'unsubscribe') => {
  const m = new RegExp(`https?://[^\\s]+/subscriptions/([A-Za-z0-9_-]{43})/${action}`).exec(unfold(raw));
  expect(m).not.toBeNull();
  return { url: m![0], token: m![1]! };
};

async function deliverAll(prisma: PrismaClient, subscriberIds: string[]) {
  const rows = await prisma.subscriberDelivery.findMany({
    where: { subscriberId: { in: subscriberIds }, status: 'pending' },
    select: { id: true },
  });
  for (const r of rows) await deliverSubscriberMessage(deliveryDeps, r.id, { finalAttempt: true });
  return rows.length;
}

async function waitFor<T>(fn: () => T | Promise<T>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('email subscriptions: double opt-in through BullMQ', () => {
  it('202, a confirmation mail sent by the queue worker, a one-time confirm link, then subscribed', async () => {
    const { page } = await setup();
    // The runtime's subscriber worker alone; no sweep (the other tests sweep themselves).
    const worker = startRuntime(h, {
      parts: { checks: false, escalations: false, subscribers: true },
      timing: { subscriberSweepMs: false },
    });
    try {
      const addr = email();
      const res = await post(page.slug, { email: addr });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        data: { kind: 'email', status: 'pending_confirmation', message: expect.any(String) },
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      const mail = (await waitFor(() => mailsTo(addr)[0]))!;
      expect(mail.raw).toMatch(/Subject: Confirm your subscription to Acme status/);
      const { token } = linkIn(mail.raw, 'confirm');
      const row = await h.prisma.statusPageSubscriber.findFirstOrThrow({ where: { email: addr } });
      expect(row.confirmedAt).toBeNull();
      // Stored hashed and sealed: the token itself is nowhere in the row.
      expect(JSON.stringify(row)).not.toContain(token);

      // GET shows a button and changes nothing (mail scanners open links); POST confirms; the link is then spent.
      const form = await request(app).get(`/status/${page.slug}/subscriptions/${token}/confirm`);
      expect(form.status).toBe(200);
      expect(form.text).toContain(`<form method="post" action="/status/${page.slug}/subscriptions/${token}/confirm">`);
      expect((await h.prisma.statusPageSubscriber.findUniqueOrThrow({ where: { id: row.id } })).confirmedAt).toBeNull();
      const done = await request(app).post(`/status/${page.slug}/subscriptions/${token}/confirm`);
      expect(done.status).toBe(200);
      expect(done.text).toContain('Subscribed');
      expect(
        (await h.prisma.statusPageSubscriber.findUniqueOrThrow({ where: { id: row.id } })).confirmedAt,
      ).not.toBeNull();
      const again = await request(app).post(`/status/${page.slug}/subscriptions/${token}/confirm`);
      expect(again.status).toBe(404);
      // The delivery ran once and is recorded sent.
      const d = await h.prisma.subscriberDelivery.findFirstOrThrow({ where: { subscriberId: row.id } });
      expect([d.status, d.attempts]).toEqual(['sent', 1]);
    } finally {
      await worker.close();
    }
  }, 30_000);

  it('never reveals whether an address is known: same answer for new, pending and confirmed; confirmed is untouched', async () => {
    const { page, api } = await setup();
    const addr = email();
    const first = await post(page.slug, { email: addr });
    const pending = await post(page.slug, { email: addr.toUpperCase(), componentIds: [api.componentId] });
    const row = await h.prisma.statusPageSubscriber.findFirstOrThrow({ where: { statusPageId: page.id } });
    await h.prisma.statusPageSubscriber.update({ where: { id: row.id }, data: { confirmedAt: new Date() } });
    const confirmed = await post(page.slug, { email: addr, componentIds: [] });
    expect([first.status, pending.status, confirmed.status]).toEqual([202, 202, 202]);
    expect(pending.body).toEqual(first.body);
    expect(confirmed.body).toEqual(first.body);
    expect(await h.prisma.statusPageSubscriber.count({ where: { statusPageId: page.id } })).toBe(1);
    // The confirmed subscription was not changed by the third request; two confirmation deliveries, not three.
    expect(await h.prisma.subscriberComponent.count({ where: { subscriberId: row.id } })).toBe(1);
    expect(await h.prisma.subscriberDelivery.count({ where: { subscriberId: row.id } })).toBe(2);
  });

  it('rate limits per client address (429) and per email address (202, nothing sent)', async () => {
    const { page } = await setup();
    const ip = clientIp();
    const addr = email();
    for (let i = 0; i < SUBSCRIBE_PER_EMAIL_PER_HOUR + 2; i++)
      expect((await post(page.slug, { email: addr })).status).toBe(202);
    const row = await h.prisma.statusPageSubscriber.findFirstOrThrow({ where: { statusPageId: page.id } });
    expect(await h.prisma.subscriberDelivery.count({ where: { subscriberId: row.id } })).toBe(
      SUBSCRIBE_PER_EMAIL_PER_HOUR,
    );
    for (let i = 0; i < SUBSCRIBE_PER_IP_PER_HOUR; i++) await post(page.slug, { email: email() }, ip);
    const limited = await post(page.slug, { email: email() }, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  }, 30_000);

  it('400 naming the bad fields; components must be shown on the page; forms work without JavaScript', async () => {
    const { page, api } = await setup();
    const other = await setup();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{}, ['email']],
      [{ email: 'not an address' }, ['email']],
      [{ email: email(), webhookUrl: 'https://example.test/hook' }, ['webhookUrl']],
      [{ email: email(), extra: 1 }, ['extra']],
      [{ email: email(), componentIds: ['nope'] }, ['componentIds[0]']],
      [{ email: email(), componentIds: [api.componentId, api.componentId] }, ['componentIds[1]']],
      [{ email: email(), componentIds: [other.api.componentId] }, ['componentIds[0]']],
    ];
    for (const [body, paths] of cases) {
      const res = await post(page.slug, body);
      expect([body, res.status, res.body.error?.details?.issues?.map((i: { path: string }) => i.path)]).toEqual([
        body,
        400,
        paths,
      ]);
    }
    const form = await request(app)
      .post(`/status/${page.slug}/subscribe`)
      .set('X-Forwarded-For', clientIp())
      .type('form')
      .send(`email=${encodeURIComponent(email())}&componentIds=${api.componentId}`);
    expect([form.status, form.type]).toEqual([202, 'text/html']);
    expect(form.text).toContain('a confirmation link is on its way');
    const html = (await request(app).get(`/status/${page.slug}`)).text;
    expect(html).toContain(`<form method="post" action="/status/${page.slug}/subscribe">`);
  });

  it('a password-protected page takes subscriptions only with its session', async () => {
    const { page } = await setup();
    await setStatusPagePassword(
      h.prisma,
      { id: page.id, password: 'members only!' },
      { publicBaseUrl: h.config.publicBaseUrl },
    );
    expect((await post(page.slug, { email: email() })).status).toBe(401);
    expect(await h.prisma.statusPageSubscriber.count({ where: { statusPageId: page.id } })).toBe(0);
  });
});

describe('webhook subscriptions', () => {
  it('SSRF-guarded; the secret is shown once and signs every delivery', async () => {
    const { page } = await setup();
    const strictApp = createApp({ ...h.deps, guard: createSsrfGuard(), subscribers: queue });
    const blocked = await request(strictApp)
      .post(`/status/${page.slug}/subscribe`)
      .set('X-Forwarded-For', clientIp())
      .send({ webhookUrl: 'http://127.0.0.1:9/hook' });
    expect(blocked.status).toBe(400);
    expect(blocked.body.error.details.issues[0].path).toBe('webhookUrl');

    const url = rx.url(`/status/200?page=${page.id}`);
    const res = await post(page.slug, { webhookUrl: url });
    expect(res.status).toBe(202);
    const { id, secret } = res.body.data as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const row = await h.prisma.statusPageSubscriber.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(url);
    expect(row.webhookDisplay).toBe(`http://127.0.0.1:${rx.port}/…`);
    expect(row.confirmedAt).not.toBeNull();
  });
});

describe('notifications', () => {
  it('public incident opened, updated and resolved, and maintenance scheduled, started and completed: told once each', async () => {
    const { w, page, api, web } = await setupShowingBoth();
    const t0 = Date.now();
    const url = rx.url(`/status/200?notify=${page.id}`);
    const hook = (await post(page.slug, { webhookUrl: url })).body.data as { id: string; secret: string };
    const apiOnly = (
      await post(page.slug, { webhookUrl: rx.url(`/status/200?apionly=${page.id}`), componentIds: [api.componentId] })
    ).body.data as { id: string };
    const addr = email();
    await post(page.slug, { email: addr });
    const reader = await h.prisma.statusPageSubscriber.findFirstOrThrow({ where: { email: addr } });
    await h.prisma.statusPageSubscriber.update({ where: { id: reader.id }, data: { confirmedAt: new Date(t0 - MIN) } });
    await h.prisma.subscriberDelivery.deleteMany({ where: { subscriberId: reader.id } });

    const incident = await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: web.id,
        openMonitorId: web.id,
        title: 'Web is down',
        startedAt: new Date(t0 + 1000),
      },
    });
    const update = await h.prisma.incidentUpdate.create({
      data: { incidentId: incident.id, status: 'identified', message: 'Bad deploy', createdAt: new Date(t0 + 2 * MIN) },
    });
    await h.prisma.incident.update({
      where: { id: incident.id },
      data: { status: 'resolved', openMonitorId: null, resolvedAt: new Date(t0 + 3 * MIN) },
    });
    const maint = await request(app)
      .post('/api/v1/maintenance')
      .set(bearer(w.tokens.owner))
      .send({
        title: 'DB upgrade',
        startsAt: new Date(t0 + 4 * MIN).toISOString(),
        endsAt: new Date(t0 + 5 * MIN).toISOString(),
      });
    expect(maint.status).toBe(201);
    // An incident of a component the page does not show is not public.
    const hidden = await monitor(w, 'Internal');
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: hidden.id,
        openMonitorId: hidden.id,
        title: 'Internal',
        startedAt: new Date(t0 + 1000),
      },
    });

    const sweepDeps = { prisma: h.prisma, queue, logger: h.deps.logger };
    await sweepSubscribers(sweepDeps, new Date(t0), new Date(t0 + 10 * MIN));
    // Again over an overlapping span: nothing new.
    const second = await sweepSubscribers(sweepDeps, new Date(t0 - MIN), new Date(t0 + 10 * MIN));
    expect(second.created).toBe(0);
    const keys = async (subscriberId: string) =>
      (await h.prisma.subscriberDelivery.findMany({ where: { subscriberId }, select: { eventKey: true } }))
        .map((d) => d.eventKey)
        .sort();
    const all = [
      `incident:${incident.id}:opened`,
      `incident:${incident.id}:resolved`,
      `maintenance:${maint.body.data.id}:completed`,
      `maintenance:${maint.body.data.id}:scheduled`,
      `maintenance:${maint.body.data.id}:started`,
      `update:${update.id}`,
    ];
    expect(await keys(hook.id)).toEqual(all);
    expect(await keys(reader.id)).toEqual(all);
    // Following API only: the Web incident is not for it; the whole-workspace maintenance is.
    expect(await keys(apiOnly.id)).toEqual(all.filter((k) => k.startsWith('maintenance:')));

    const before = rx.requests.length;
    expect(await deliverAll(h.prisma, [hook.id, reader.id])).toBe(12);
    const got = rx.requests.slice(before).filter((r) => r.path.includes(`notify=${page.id}`));
    expect(got).toHaveLength(6);
    for (const r of got) {
      const sig = String(r.headers['statusvane-signature']);
      expect(verifyWebhookSignature(hook.secret, sig, r.body)).toBe(true);
      expect(r.headers['statusvane-delivery']).toEqual(expect.any(String));
    }
    const types = got.map((r) => JSON.parse(r.body).type).sort();
    expect(types).toEqual([
      'incident.opened',
      'incident.resolved',
      'incident.updated',
      'maintenance.completed',
      'maintenance.scheduled',
      'maintenance.started',
    ]);
    const mails = mailsTo(addr);
    expect(mails).toHaveLength(6);
    for (const m of mails) {
      expect(m.raw).toMatch(/^List-Unsubscribe:\s+<https?:\/\/[^>]+\/unsubscribe>/m);
      expect(m.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    }
    expect(mails.some((m) => /Subject: \[Acme\] Identified: Web is down/.test(m.raw))).toBe(true);
    // Every incident message links the incident's own page; the webhook body carries it too.
    const permalink = `${page.url}/incidents/${incident.id}`;
    const incidentMails = mails.filter((m) => /Web is down/.test(m.raw));
    expect(incidentMails).toHaveLength(3);
    for (const m of incidentMails) expect(unfold(m.raw)).toContain(`Details and every update: ${permalink}`);
    const hooks = got.map((r) => JSON.parse(r.body)).filter((b) => b.type.startsWith('incident.'));
    expect(hooks.map((b) => b.incident.url)).toEqual([permalink, permalink, permalink]);
    expect((await request(app).get(new URL(permalink).pathname)).status).toBe(200);

    // The unsubscribe link works once (one-click POST, as mail clients send it).
    const { token } = linkIn(mails[0]!.raw, 'unsubscribe');
    const off = await request(app)
      .post(`/status/${page.slug}/subscriptions/${token}/unsubscribe`)
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(off.status).toBe(200);
    expect(await h.prisma.statusPageSubscriber.count({ where: { id: reader.id } })).toBe(0);
    expect((await request(app).post(`/status/${page.slug}/subscriptions/${token}/unsubscribe`)).status).toBe(404);
  }, 30_000);

  it('an update is told however soon after the opening it is posted; only a manual incident`s opening message is not', async () => {
    const { w, page, api, web } = await setupShowingBoth();
    const t0 = Date.now();
    const hook = (await post(page.slug, { webhookUrl: rx.url(`/status/200?early=${page.id}`) })).body.data as {
      id: string;
    };
    await h.prisma.statusPageSubscriber.update({ where: { id: hook.id }, data: { confirmedAt: new Date(t0 - MIN) } });
    const as = bearer(w.tokens.owner);
    const postUpdate = async (incidentId: string) => {
      const res = await request(app)
        .post(`/api/v1/incidents/${incidentId}/updates`)
        .set(as)
        .send({ status: 'identified', message: 'Bad deploy, rolling back' });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };

    // A monitor's incident, opened 5 s ago, and its first update now.
    const down = await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: web.id,
        openMonitorId: web.id,
        title: 'Web is down',
        startedAt: new Date(Date.now() - 5000),
      },
    });
    const early = await postUpdate(down.id);
    // A manual incident with its opening message (POST /incidents with `message`), and one without whose first
    // update follows at once.
    const manual = async (body: Record<string, unknown>) => {
      const res = await request(app)
        .post('/api/v1/incidents')
        .set(as)
        .send({ title: 'Slow checkout', componentIds: [api.componentId], ...body });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const withMessage = await manual({ message: 'We are looking into it' });
    const opening = await h.prisma.incidentUpdate.findFirstOrThrow({ where: { incidentId: withMessage } });
    const withoutMessage = await manual({});
    const followUp = await postUpdate(withoutMessage);

    await sweepSubscribers(
      { prisma: h.prisma, queue, logger: h.deps.logger },
      new Date(t0 - MIN),
      new Date(Date.now() + MIN),
    );
    const keys = (
      await h.prisma.subscriberDelivery.findMany({ where: { subscriberId: hook.id }, select: { eventKey: true } })
    ).map((d) => d.eventKey);
    expect(keys.sort()).toEqual(
      [
        `incident:${down.id}:opened`,
        `update:${early}`,
        `incident:${withMessage}:opened`,
        `incident:${withoutMessage}:opened`,
        `update:${followUp}`,
      ].sort(),
    );
    expect(keys).not.toContain(`update:${opening.id}`);
  });

  it('no second mail after a crash between claim and send; a failure that may pass goes back to pending, the last one fails', async () => {
    const { page } = await setup();
    const addr = email();
    await post(page.slug, { email: addr });
    const sub = await h.prisma.statusPageSubscriber.findFirstOrThrow({ where: { email: addr } });
    const d = await h.prisma.subscriberDelivery.findFirstOrThrow({ where: { subscriberId: sub.id } });
    // A worker claimed it and died: the row says `sending`. The job's retry sends nothing.
    await h.prisma.subscriberDelivery.update({
      where: { id: d.id },
      data: { status: 'sending', claimedAt: new Date() },
    });
    const r = await deliverSubscriberMessage(deliveryDeps, d.id, { finalAttempt: false });
    expect(r.outcome).toBe('skipped');
    expect(mailsTo(addr)).toHaveLength(0);

    // A webhook answering 503: pending again with the reason (BullMQ retries it); the final attempt marks it failed.
    const hook = (await post(page.slug, { webhookUrl: rx.url('/status/503') })).body.data as { id: string };
    const { id: del } = await h.prisma.subscriberDelivery.create({
      data: { subscriberId: hook.id, eventKey: `maintenance:${sub.id}:started` },
    });
    // (The event points at nothing: skipped as gone, nothing sent.)
    expect((await deliverSubscriberMessage(deliveryDeps, del, { finalAttempt: false })).outcome).toBe('skipped');
    const w = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id }, select: { workspaceId: true } });
    const win = await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.workspaceId,
        title: 'Later',
        startsAt: new Date(Date.now() + MIN),
        endsAt: new Date(Date.now() + 2 * MIN),
      },
    });
    const { id: real } = await h.prisma.subscriberDelivery.create({
      data: { subscriberId: hook.id, eventKey: `maintenance:${win.id}:scheduled` },
    });
    expect(await deliverSubscriberMessage(deliveryDeps, real, { finalAttempt: false })).toEqual({
      outcome: 'retry',
      reason: 'http_503',
    });
    expect(await h.prisma.subscriberDelivery.findUniqueOrThrow({ where: { id: real } })).toMatchObject({
      status: 'pending',
      attempts: 1,
      reason: 'http_503',
    });
    expect((await deliverSubscriberMessage(deliveryDeps, real, { finalAttempt: true })).outcome).toBe('failed');
    expect(await h.prisma.subscriberDelivery.findUniqueOrThrow({ where: { id: real } })).toMatchObject({
      status: 'failed',
      attempts: 2,
    });
  });
});
