/**
 * Section 10 end to end: schedule and user escalation targets page through contact methods, the fallback in a gap,
 * handoffs during an open incident, and the one-use acknowledge / resolve links every page carries. The engine runs
 * on an injected clock (steps run by the test at the minute it picks; jobs go to a queue no worker reads); pages go
 * to a real local HTTP receiver and a real local SMTP server; links are followed on the real app.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  createDeliverer,
  createLogger,
  EscalationScheduler,
  workspaceSigningSecrets,
  type EscalationJob,
} from '@statusvane/shared';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import {
  noticeHandoffs,
  runEscalationStep,
  sendIncidentNotices,
  type EscalationDeps,
} from '../apps/worker/src/escalation/engine.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { startSmtp } from './support/smtp.js';

const MIN = 60_000;
const BASE = 'https://status.example.test';
let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let idle: EscalationScheduler;
let engine: EscalationDeps;
const clock = { now: new Date() };

async function startReceiver() {
  const received: Array<{ path: string; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (prefix: string) => received.filter((r) => r.path.startsWith(prefix)),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8', PUBLIC_BASE_URL: BASE });
  smtp = await startSmtp();
  rx = await startReceiver();
  idle = new EscalationScheduler(h.redis, `${h.queuePrefix}-idle`);
  engine = {
    prisma: h.prisma,
    scheduler: idle,
    deliverer: createDeliverer({
      guard: h.deps.guard,
      signingSecret: workspaceSigningSecrets(h.prisma, h.config.encryption.current.key),
      smtp: { url: smtp.url, from: 'Statusvane <pager@statusvane.test>' },
      timeoutMs: 2000,
      retry: { attempts: 2, backoffMs: 20 },
      now: () => clock.now,
    }),
    logger: createLogger({ level: 'error', json: true, service: 'test-oncall', silent: !process.env.TEST_LOG }),
    keyring: h.config.encryption,
    now: () => clock.now,
    publicBaseUrl: BASE,
  };
});

afterAll(async () => {
  engine.deliverer.close();
  await idle.close();
  await smtp.close();
  await rx.close();
  await h.close();
});

/**
 * A team: Ann (email and a webhook), Bob (a webhook), Dan (no contact method), Cat the fallback (email); a schedule
 * whose hourly rotation hands Ann over to Bob 30 minutes after t0 (and to Dan an hour later), and `steps` as the
 * workspace's default policy.
 */
async function team(steps: (ids: { schedule: string; bob: string }) => unknown[], restrictions?: unknown[]) {
  const w = await makeWorkspace(h.prisma);
  const [ann, bob, cat, dan] = await Promise.all(
    ['member', 'member', 'admin', 'member'].map((role) =>
      makeUser(h.prisma, [{ workspace: w.ws.slug, role: role as 'member' }]),
    ),
  );
  const methods = async (user: { email: string }, list: unknown[]) => {
    const token = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
    const res = await request(h.app).put('/api/v1/me/contact-methods').set(bearer(token)).send({ methods: list });
    expect(res.status).toBe(200);
  };
  await methods(ann!, [
    { channel: 'email', target: ann!.email },
    { channel: 'webhook', target: `${rx.base}/ann/${w.ws.id}` },
  ]);
  await methods(bob!, [{ channel: 'webhook', target: `${rx.base}/bob/${w.ws.id}` }]);
  await methods(cat!, [{ channel: 'email', target: cat!.email }]);
  const t0 = new Date(Math.floor(Date.now() / MIN) * MIN);
  const schedule = await request(h.app)
    .post('/api/v1/schedules')
    .set(bearer(w.tokens.admin))
    .send({
      name: 'Primary',
      timezone: 'Europe/Berlin',
      fallbackUserId: cat!.id,
      layers: [
        {
          name: 'Hourly',
          startsAt: new Date(t0.getTime() - 30 * MIN).toISOString(),
          rotation: { every: 1, unit: 'hours' },
          handoffTime: '00:00',
          members: [ann!.id, bob!.id, dan!.id],
          ...(restrictions ? { restrictions } : {}),
        },
      ],
    });
  expect(schedule.status).toBe(201);
  const policy = await request(h.app)
    .post('/api/v1/escalation-policies')
    .set(bearer(w.tokens.admin))
    .send({ name: 'On call', isDefault: true, steps: steps({ schedule: schedule.body.data.id, bob: bob!.id }) });
  expect(policy.status).toBe(201);
  const incident = await h.prisma.incident.create({
    data: { workspaceId: w.ws.id, title: 'API is down', impact: 'major', startedAt: t0 },
  });
  expect(incident.escalationPolicyId).toBe(policy.body.data.id);
  return {
    ...w,
    ann: ann!,
    bob: bob!,
    cat: cat!,
    dan: dan!,
    t0,
    incident,
    scheduleId: schedule.body.data.id as string,
  };
}

type Team = Awaited<ReturnType<typeof team>>;

/** Runs step `position` of cycle 0 at `minutes` after t0. */
async function fire(t: Team, position: number, minutes: number) {
  clock.now = new Date(t.t0.getTime() + minutes * MIN);
  const job: EscalationJob = { incidentId: t.incident.id, cycle: 0, position };
  const outcome = await runEscalationStep(engine, job);
  expect(outcome.outcome).toBe('fired');
  return outcome;
}

/** The incident's deliveries by step; within a step, what was skipped first, then by channel. */
const deliveries = async (incidentId: string) =>
  (
    await h.prisma.escalationDelivery.findMany({
      where: { incidentId },
      include: { step: { select: { position: true } } },
    })
  ).sort(
    (a, b) =>
      a.step.position - b.step.position ||
      Number(b.status === 'skipped') - Number(a.status === 'skipped') ||
      a.channel.localeCompare(b.channel),
  );

/** The mail to `to` (quoted-printable soft breaks undone). */
const mailTo = (to: string) => {
  const mail = smtp.mails.find((m) => m.to.includes(to));
  return mail ? mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=') : null;
};

/** The path of a link in a message: `/a/<token>/<action>`. */
const linkIn = (text: string, action: 'acknowledge' | 'resolve') => {
  const m = new RegExp(`${BASE.replace(/\./g, '\\.')}(/a/[A-Za-z0-9_-]{43}/${action})`).exec(text);
  if (!m) throw new Error(`no ${action} link in ${text.slice(0, 500)}`);
  return m[1]!;
};

describe('schedule and user targets', () => {
  it('pages the on-call user’s contact methods at the right step, and the next person at the next step after a handoff', async () => {
    const t = await team(({ schedule }) => [
      { delayMinutes: 0, targets: [{ channel: 'schedule', target: schedule }] },
      { delayMinutes: 60, targets: [{ channel: 'schedule', target: schedule }] },
    ]);
    await fire(t, 0, 0); // Ann is on call until t0 + 30 min
    let rows = await deliveries(t.incident.id);
    expect(rows.map((d) => [d.step.position, d.userId, d.scheduleId, d.channel, d.status])).toEqual([
      [0, t.ann.id, t.scheduleId, 'email', 'sent'],
      [0, t.ann.id, t.scheduleId, 'webhook', 'sent'],
    ]);
    expect(mailTo(t.ann.email)).toContain('API is down');
    const annHook = JSON.parse(rx.hits(`/ann/${t.ws.id}`)[0]!.body);
    expect(annHook.links).toEqual({
      acknowledge: expect.stringMatching(/^https:\/\/status\.example\.test\/a\/[A-Za-z0-9_-]{43}\/acknowledge$/),
      resolve: expect.stringMatching(/^https:\/\/status\.example\.test\/a\/[A-Za-z0-9_-]{43}\/resolve$/),
    });
    // Each delivery and action has its own link; only their hashes are stored.
    const links = await h.prisma.actionLink.findMany({ where: { incidentId: t.incident.id } });
    expect(links).toHaveLength(4);
    expect(links.every((l) => !annHook.links.acknowledge.includes(l.tokenHash))).toBe(true);

    // Bob's shift starts at t0 + 30 min while the incident is open: he is told, once.
    clock.now = new Date(t.t0.getTime() + 31 * MIN);
    expect(await noticeHandoffs(engine)).toEqual({ handoffs: 1 });
    expect(await noticeHandoffs(engine)).toEqual({ handoffs: 0 });
    expect(await sendIncidentNotices(engine, { incidentId: t.incident.id, kind: 'handoff' })).toMatchObject({
      sent: 1,
    });
    const handoff = JSON.parse(rx.hits(`/bob/${t.ws.id}`)[0]!.body);
    expect(handoff).toMatchObject({ type: 'oncall.handoff', schedule: { id: t.scheduleId, name: 'Primary' } });

    // The next step pages whoever is on call when it fires: Bob.
    await fire(t, 1, 60);
    rows = await deliveries(t.incident.id);
    expect(rows.filter((d) => d.step.position === 1).map((d) => [d.userId, d.channel, d.status])).toEqual([
      [t.bob.id, 'webhook', 'sent'],
    ]);
    const escalation = await request(h.app)
      .get(`/api/v1/incidents/${t.incident.id}/escalation`)
      .set(bearer(t.tokens.viewer));
    expect(escalation.body.data.steps[1].deliveries).toEqual([
      expect.objectContaining({ scheduleId: t.scheduleId, userId: t.bob.id, channel: 'webhook', status: 'sent' }),
    ]);
  });

  it('pages the fallback in a gap and records nobody_on_call; a user without a method is skipped for the fallback', async () => {
    // Nobody: the layer only has someone on Sundays from 03:00 to 03:01 Berlin time.
    const gap = await team(
      ({ schedule }) => [{ delayMinutes: 0, targets: [{ channel: 'schedule', target: schedule }] }],
      [{ days: ['sun'], from: '03:00', to: '03:01' }],
    );
    clock.now = gap.t0;
    // (Unless the test runs in that very minute of a Sunday.)
    const who = await request(h.app)
      .get(`/api/v1/schedules/${gap.scheduleId}/oncall?at=${gap.t0.toISOString()}`)
      .set(bearer(gap.tokens.viewer));
    if (who.body.data.user === null) {
      await fire(gap, 0, 0);
      expect((await deliveries(gap.incident.id)).map((d) => [d.userId, d.channel, d.status, d.reason])).toEqual([
        [null, 'schedule', 'skipped', 'nobody_on_call'],
        [gap.cat.id, 'email', 'sent', null],
      ]);
      expect(mailTo(gap.cat.email)).toContain('API is down');
    }

    // Dan is on call from t0 + 90 min and has no contact method: skipped, then the fallback.
    const noMethod = await team(({ schedule }) => [
      { delayMinutes: 90, targets: [{ channel: 'schedule', target: schedule }] },
    ]);
    await fire(noMethod, 0, 95);
    expect((await deliveries(noMethod.incident.id)).map((d) => [d.userId, d.channel, d.status, d.reason])).toEqual([
      [noMethod.dan.id, 'user', 'skipped', 'no_contact_method'],
      [noMethod.cat.id, 'email', 'sent', null],
    ]);
  });

  it('pages a user target through their methods, and refuses a target of another workspace', async () => {
    const t = await team(({ bob }) => [{ delayMinutes: 0, targets: [{ channel: 'user', target: bob }] }]);
    await fire(t, 0, 0);
    expect((await deliveries(t.incident.id)).map((d) => [d.userId, d.scheduleId, d.channel, d.status])).toEqual([
      [t.bob.id, null, 'webhook', 'sent'],
    ]);
    const stranger = await makeUser(h.prisma, []);
    const bad = await request(h.app)
      .post('/api/v1/escalation-policies')
      .set(bearer(t.tokens.admin))
      .send({
        name: 'Bad',
        steps: [
          {
            delayMinutes: 0,
            targets: [
              { channel: 'user', target: stranger.id },
              { channel: 'schedule', target: t.ann.id },
            ],
          },
        ],
      });
    expect([bad.status, bad.body.error.details.issues]).toEqual([
      400,
      [
        { path: 'steps[0].targets[0].target', message: 'is not a member of this workspace' },
        { path: 'steps[0].targets[1].target', message: 'is not a schedule of this workspace' },
      ],
    ]);
  });
});

describe('a schedule that is paged', () => {
  it('cannot be deleted while a policy pages it (409); it can once the policy no longer does', async () => {
    const t = await team(({ schedule }) => [{ delayMinutes: 0, targets: [{ channel: 'schedule', target: schedule }] }]);
    const refused = await request(h.app).delete(`/api/v1/schedules/${t.scheduleId}`).set(bearer(t.tokens.admin));
    expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([
      409,
      'conflict',
      expect.stringContaining('"On call"'),
    ]);
    const policy = await h.prisma.escalationPolicy.findFirstOrThrow({
      where: { workspaceId: t.ws.id, archivedAt: null },
    });
    const patched = await request(h.app)
      .patch(`/api/v1/escalation-policies/${policy.id}`)
      .set(bearer(t.tokens.admin))
      .send({ steps: [{ delayMinutes: 0, targets: [{ channel: 'user', target: t.bob.id }] }] });
    expect(patched.status).toBe(200);
    expect((await request(h.app).delete(`/api/v1/schedules/${t.scheduleId}`).set(bearer(t.tokens.admin))).status).toBe(
      204,
    );
  });
});

describe('acknowledge and resolve links', () => {
  it('acknowledges once from the link in a delivered mail; a scanner’s GET changes nothing; then it answers it was used', async () => {
    const t = await team(({ schedule }) => [{ delayMinutes: 0, targets: [{ channel: 'schedule', target: schedule }] }]);
    await fire(t, 0, 0);
    const path = linkIn(mailTo(t.ann.email)!, 'acknowledge');

    // What a link scanner or a preview does: GET (twice). The page asks; nothing changes.
    for (let i = 0; i < 2; i++) {
      const page = await request(h.app).get(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Acknowledge this incident?');
      expect(page.text).toContain(`<form method="post" action="${path}">`);
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.text).not.toMatch(/<script(?![^>]*src=)|style=/);
    }
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: t.incident.id } })).status).toBe('open');

    clock.now = new Date();
    const acted = await request(h.app).post(path);
    expect(acted.status).toBe(200);
    expect(acted.text).toContain('Incident acknowledged');
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: t.incident.id } })).status).toBe('acknowledged');
    const audit = await h.prisma.auditEvent.findFirstOrThrow({
      where: { resourceId: t.incident.id, action: 'incident.acknowledged' },
    });
    expect([audit.actorType, audit.actorId, audit.actorName]).toEqual(['link', t.ann.id, t.ann.email]);

    const again = await request(h.app).post(path);
    expect([again.status, again.text.includes('already been used')]).toEqual([410, true]);
    expect((await request(h.app).get(path)).status).toBe(410);
    expect((await request(h.app).get('/a/not-a-token/acknowledge')).status).toBe(404);
    // The link of one action does not do the other.
    expect((await request(h.app).get(path.replace(/acknowledge$/, 'resolve'))).status).toBe(404);
  });

  it('refuses an expired link and a resolved incident’s links (410), and a paged user who is no longer a writer (403)', async () => {
    const t = await team(({ schedule }) => [{ delayMinutes: 0, targets: [{ channel: 'schedule', target: schedule }] }]);
    await fire(t, 0, 0);
    const mail = mailTo(t.ann.email)!;
    const ack = linkIn(mail, 'acknowledge');
    const resolve = linkIn(mail, 'resolve');

    await h.prisma.membership.update({
      where: { workspaceId_userId: { workspaceId: t.ws.id, userId: t.ann.id } },
      data: { role: 'viewer' },
    });
    expect((await request(h.app).post(ack)).status).toBe(403);
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: t.incident.id } })).status).toBe('open');
    await h.prisma.membership.update({
      where: { workspaceId_userId: { workspaceId: t.ws.id, userId: t.ann.id } },
      data: { role: 'member' },
    });

    await h.prisma.actionLink.updateMany({
      where: { incidentId: t.incident.id, action: 'acknowledge' },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await request(h.app).post(ack);
    expect([expired.status, expired.text.includes('expired')]).toEqual([410, true]);
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: t.incident.id } })).status).toBe('open');

    // The webhook page's link acts as the paged user too; resolving spends it, and the other links die with it.
    const hookLinks = JSON.parse(rx.hits(`/ann/${t.ws.id}`).at(-1)!.body).links;
    const resolved = await request(h.app).post(new URL(hookLinks.resolve).pathname);
    expect(resolved.status).toBe(200);
    const gone = await request(h.app).get(resolve);
    expect([gone.status, gone.text.includes('already resolved')]).toEqual([410, true]);
  });

  it('acts as the delivery when the page went to a channel target (no user)', async () => {
    const t = await team(() => [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: `${rx.base}/team/` }] }]);
    await fire(t, 0, 0);
    const page = JSON.parse(rx.hits('/team/').find((r) => r.body.includes(t.incident.id))!.body);
    const res = await request(h.app).post(new URL(page.links.acknowledge).pathname);
    expect(res.status).toBe(200);
    const audit = await h.prisma.auditEvent.findFirstOrThrow({
      where: { resourceId: t.incident.id, action: 'incident.acknowledged' },
    });
    expect([audit.actorType, audit.actorId]).toEqual(['link', page.deliveryId]);
  });
});
