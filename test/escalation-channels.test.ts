/**
 * The alert channels beyond webhook, Slack and email (pagerduty, opsgenie, teams, discord, ntfy, telegram), end to
 * end against a local fake of each provider that checks the documented format (support/alert-providers.ts), and
 * the acknowledged / resolved notices sent to every target that was paged.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger, createSsrfGuard, escalationNoticeJobId, type EscalationNoticeJob } from '@statusvane/shared';
import { createPolicy } from '../apps/api/src/admin/policy-commands.js';
import { escalationStateSchema } from '../apps/api/src/services/incidents/get-escalation.js';
import { createDeliverer, workspaceSigningSecrets, type Page } from '@statusvane/shared';
import {
  reconcileNotices,
  runEscalationStep,
  sendIncidentNotices,
  sweepEscalations,
  type EscalationDeps,
} from '../apps/worker/src/escalation/engine.js';
import { decodeHeaderWord, startAlertProviders, type ProviderRequest } from './support/alert-providers.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startRuntime, waitFor } from './support/worker-harness.js';
import { adminCli } from './support/admin-cli.js';

let h: Harness;
let fake: Awaited<ReturnType<typeof startAlertProviders>>;
let deps: EscalationDeps;
let worker: ReturnType<typeof startRuntime>;
/** Every line the engine logged (JSON), to prove no key or URL ends up in a log. */
const logLines: string[] = [];

beforeAll(async () => {
  fake = await startAlertProviders();
  // The provider URLs go through the configuration, as in production.
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8', ...fake.env });
  const logger = createLogger({
    level: 'info',
    json: true,
    service: 'test-channels',
    stream: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logLines.push(chunk.toString('utf8'));
        callback();
      },
    }),
  });
  const deliverer = createDeliverer({
    guard: h.deps.guard,
    signingSecret: workspaceSigningSecrets(h.prisma, h.config.encryption.current.key),
    smtp: null,
    providers: h.config.alertProviders,
    timeoutMs: 2000,
    retry: { attempts: 3, backoffMs: 50 },
  });
  // The runtime's escalation worker (no checks: nothing here is probed); the tests run its deps' verbs too.
  worker = startRuntime(h, { logger, deliverer, parts: { checks: false } });
  deps = worker.runtime.escalationDeps;
});

afterAll(async () => {
  await worker.close();
  deps.deliverer.close();
  await fake.close();
  await h.close();
});

// ---------------------------------------------------------------------------------------------------------------

/** Fresh secrets per test: each must be findable if it leaked anywhere. */
function secrets() {
  const id = randomBytes(4).toString('hex');
  return {
    routingKey: randomBytes(16).toString('hex'),
    apiKey: randomUUID(),
    botToken: `${100000 + Math.floor(Math.random() * 1e6)}:${randomBytes(27).toString('base64url')}`,
    chatId: '-1001234567890',
    teams: `${fake.base}/teams/webhookb2/teams-secret-${id}`,
    discord: `${fake.base}/discord/api/webhooks/1/discord-secret-${id}`,
    ntfy: `${fake.base}/ntfy/topic-secret-${id}`,
  };
}
type Secrets = ReturnType<typeof secrets>;

const allChannels = (s: Secrets) => [
  { channel: 'pagerduty', routingKey: s.routingKey },
  { channel: 'opsgenie', apiKey: s.apiKey },
  { channel: 'teams', target: s.teams },
  { channel: 'discord', target: s.discord },
  { channel: 'ntfy', target: s.ntfy },
  { channel: 'telegram', botToken: s.botToken, chatId: s.chatId },
];
const secretValues = (s: Secrets) => [
  s.routingKey,
  s.apiKey,
  s.botToken,
  s.botToken.split(':')[1]!,
  'teams-secret',
  'discord-secret',
  'topic-secret',
];

type StepInput = { delayMinutes: number; targets: Array<Record<string, unknown>> };

function policyFor(slug: string, steps: StepInput[], guard = h.deps.guard) {
  return createPolicy(
    h.prisma,
    { workspace: slug, json: JSON.stringify({ name: 'On call', runbook: 'Restart the API.', steps }), default: true },
    { guard, encryption: h.config.encryption.current },
  );
}

async function openIncident(workspaceId: string, over: Record<string, unknown> = {}) {
  return h.prisma.incident.create({
    data: { workspaceId, title: 'API is down', impact: 'major', source: 'manual', ...over },
  });
}

/** What each provider received about one incident: its id is in every body; URL channels by their own path. */
function receivedFor(incidentId: string, s: Secrets) {
  const of = (prefix: string) => fake.to(prefix, incidentId);
  const at = (url: string) => fake.to(new URL(url).pathname, incidentId);
  return {
    pagerduty: of('/pd/'),
    opsgenie: of('/og/'),
    teams: at(s.teams),
    discord: at(s.discord),
    ntfy: at(s.ntfy),
    telegram: of('/tg/'),
  };
}

const noticesOf = (incidentId: string) =>
  h.prisma.escalationNotice.findMany({ where: { incidentId }, orderBy: [{ kind: 'asc' }, { channel: 'asc' }] });

const noticeJobDone = (job: EscalationNoticeJob, after = 0) =>
  waitFor(
    async () => worker.escalations.slice(after).find((c) => c.id === escalationNoticeJobId(job)),
    10_000,
    `notice job ${escalationNoticeJobId(job)}`,
  );

/** A page's link: `<PUBLIC_BASE_URL>/a/<43 characters>/<action>`. */
const LINK = (action: 'acknowledge' | 'resolve') => new RegExp(`https?://[^/\\s]+/a/[A-Za-z0-9_-]{43}/${action}`);

/** The text a chat channel showed (Teams card, Discord content, ntfy title + body, Telegram text). */
function chatText(r: ProviderRequest): string {
  if (r.path.startsWith('/teams/')) {
    const card = (r.json!.attachments as Array<{ content: { body: Array<{ text: string }> } }>)[0]!.content;
    return card.body.map((b) => b.text).join('\n');
  }
  if (r.path.startsWith('/discord/')) return r.json!.content as string;
  if (r.path.startsWith('/ntfy/')) return `${decodeHeaderWord(r.headers.title as string)}\n${r.body}`;
  return r.json!.text as string;
}

// ---------------------------------------------------------------------------------------------------------------

describe('paging the new channels', () => {
  it("sends each provider its documented format, and no record, row or log line ever shows a key or a URL's secret", async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const s = secrets();
    const policy = await policyFor(ws.slug, [{ delayMinutes: 0, targets: allChannels(s) }]);
    // The admin's record shows display forms only.
    expect(policy.steps[0]!.targets.map((t) => [t.channel, t.display])).toEqual([
      ['pagerduty', `routing key …${s.routingKey.slice(-4)}`],
      ['opsgenie', `API key …${s.apiKey.slice(-4)}`],
      ['teams', `${fake.base}/…`],
      ['discord', `${fake.base}/…`],
      ['ntfy', `${fake.base}/…`],
      ['telegram', `chat ${s.chatId}`],
    ]);
    const stored = await h.prisma.escalationTarget.findMany({ where: { step: { policyId: policy.id } } });
    for (const text of [JSON.stringify(policy), JSON.stringify(stored)]) {
      for (const secret of secretValues(s)) expect([secret, text.includes(secret)]).toEqual([secret, false]);
    }

    const title = 'Checkout — «paiement» @everyone is down';
    const incident = await openIncident(ws.id, { title, impact: 'critical', metadata: { team: 'payments' } });
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      outcome: 'fired',
      sent: 6,
      failed: 0,
    });

    const got = receivedFor(incident.id, s);
    for (const [channel, requests] of Object.entries(got)) {
      expect([channel, requests.length, requests[0]?.problems]).toEqual([channel, 1, []]);
    }
    // PagerDuty Events API v2: a trigger, deduplicated on the incident id.
    expect(got.pagerduty[0]!.json).toEqual({
      routing_key: s.routingKey,
      event_action: 'trigger',
      dedup_key: incident.id,
      payload: {
        summary: `${title} (impact critical)`,
        source: 'statusvane',
        severity: 'critical',
        timestamp: incident.startedAt.toISOString(),
        class: 'manual',
        custom_details: {
          incidentId: incident.id,
          workspaceId: ws.id,
          policy: 'On call',
          step: 1,
          cycle: 0,
          runbook: 'Restart the API.',
          metadata: { team: 'payments' },
        },
      },
      links: [
        { href: expect.stringMatching(LINK('acknowledge')), text: 'Acknowledge in Statusvane' },
        { href: expect.stringMatching(LINK('resolve')), text: 'Resolve in Statusvane' },
      ],
      client: 'Statusvane',
    });
    // Every page carries its one-use acknowledge and resolve links (beyond-the-seed section 10): in the text of
    // every chat channel, as buttons in Teams and ntfy, in Opsgenie's details.
    for (const channel of ['teams', 'discord', 'ntfy', 'telegram'] as const) {
      const text = chatText(got[channel][0]!);
      expect([channel, LINK('acknowledge').test(text), LINK('resolve').test(text)]).toEqual([channel, true, true]);
    }
    const card = (
      got.teams[0]!.json!.attachments as Array<{ content: { actions: Array<{ title: string; url: string }> } }>
    )[0]!.content;
    expect(card.actions.map((a) => [a.title, LINK(a.title.toLowerCase() as 'acknowledge').test(a.url)])).toEqual([
      ['Acknowledge', true],
      ['Resolve', true],
    ]);
    expect(got.ntfy[0]!.headers.actions).toMatch(
      /^view, Acknowledge, http\S+\/a\/[A-Za-z0-9_-]{43}\/acknowledge, clear=true; view, Resolve, http\S+\/resolve, clear=true$/,
    );
    expect((got.opsgenie[0]!.json!.details as Record<string, string>).acknowledgeUrl).toMatch(LINK('acknowledge'));
    // Opsgenie: create alert with the incident id as alias, the key in the GenieKey header only.
    expect(got.opsgenie[0]!.path).toBe('/og/v2/alerts');
    expect(got.opsgenie[0]!.headers.authorization).toBe(`GenieKey ${s.apiKey}`);
    expect(got.opsgenie[0]!.json).toMatchObject({
      message: title,
      alias: incident.id,
      source: 'Statusvane',
      priority: 'P1',
      details: { team: 'payments', incidentId: incident.id, policy: 'On call', step: '1', cycle: '0' },
      tags: ['statusvane', 'impact:critical'],
    });
    expect(got.opsgenie[0]!.json!.description).toContain('Runbook: Restart the API.');
    expect(got.opsgenie[0]!.body).not.toContain(s.apiKey);
    // Teams: an Adaptive Card whose first block is the title.
    expect(chatText(got.teams[0]!)).toMatch(
      new RegExp(`^${title} \\(impact critical\\)\\n.*Incident ${incident.id}`, 's'),
    );
    // Discord: nothing in the title pings anyone.
    expect(got.discord[0]!.json).toMatchObject({ username: 'Statusvane', allowed_mentions: { parse: [] } });
    expect(chatText(got.discord[0]!)).toContain(`**${title} (impact critical)**`);
    // ntfy: the non-ASCII title as an RFC 2047 word, the priority from the impact.
    expect(got.ntfy[0]!.headers.title).toMatch(/^=\?UTF-8\?B\?/);
    expect(decodeHeaderWord(got.ntfy[0]!.headers.title as string)).toBe(`${title} (impact critical)`);
    expect([got.ntfy[0]!.headers.priority, got.ntfy[0]!.headers.tags]).toEqual(['5', 'rotating_light']);
    expect(got.ntfy[0]!.body).toContain('Runbook: Restart the API.');
    // Telegram: sendMessage of the bot, to the chat, as plain text.
    expect(got.telegram[0]!.path).toBe(`/tg/bot${s.botToken}/sendMessage`);
    expect(got.telegram[0]!.json).toMatchObject({ chat_id: s.chatId, link_preview_options: { is_disabled: true } });
    expect(chatText(got.telegram[0]!)).toContain(title);

    // The record and the delivery rows show display forms; the logs name no target at all.
    const record = await request(h.app).get(`/api/v1/incidents/${incident.id}/escalation`).set(bearer(tokens.viewer));
    expect(record.status).toBe(200);
    expect(escalationStateSchema.safeParse(record.body.data).error).toBeUndefined();
    expect(
      record.body.data.steps[0].deliveries.map((d: { channel: string; target: string; status: string }) => [
        d.channel,
        d.target,
        d.status,
      ]),
    ).toEqual(policy.steps[0]!.targets.map((t) => [t.channel, t.display, 'sent']));
    const rows = await h.prisma.escalationDelivery.findMany({ where: { incidentId: incident.id } });
    const logs = logLines.join('');
    expect(logs).toContain(incident.id);
    for (const text of [JSON.stringify(record.body), JSON.stringify(rows), logs]) {
      for (const secret of secretValues(s)) expect([secret, text.includes(secret)]).toEqual([secret, false]);
    }
  });

  it('retries a provider that answers 5xx or 429, and does not retry an event it refused', async () => {
    const s = secrets();
    const incidentId = randomUUID();
    const page: Page = {
      deliveryId: randomUUID(),
      workspaceId: randomUUID(),
      incident: {
        id: incidentId,
        title: 'x'.repeat(2000),
        status: 'open',
        impact: 'minor',
        source: 'monitor',
        startedAt: new Date().toISOString(),
        monitorId: randomUUID(),
        metadata: {},
      },
      policy: { id: randomUUID(), name: 'p', runbook: '' },
      step: { id: randomUUID(), position: 0, delayMinutes: 0, minImpact: 'none', cycle: 1 },
      firedAt: new Date().toISOString(),
    };
    fake.failNext('/pd/', 503, 429);
    expect(await deps.deliverer.deliver('pagerduty', s.routingKey, page)).toMatchObject({
      status: 'sent',
      attempts: 3,
    });
    fake.failNext('/tg/', 400);
    expect(await deps.deliverer.deliver('telegram', JSON.stringify(s), page)).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: 'http_400',
    });
    // Long titles are cut to each provider's limit (the fake refuses anything longer).
    const opsgenie = await deps.deliverer.deliver('opsgenie', s.apiKey, page);
    const discord = await deps.deliverer.deliver('discord', s.discord, page);
    expect([opsgenie.status, discord.status]).toEqual(['sent', 'sent']);
    expect((fake.to('/og/v2/alerts', incidentId)[0]!.json!.message as string).length).toBe(130);
    expect((fake.to(new URL(s.discord).pathname)[0]!.json!.content as string).length).toBe(2000);
    expect(fake.to('/pd/', incidentId).map((r) => r.status)).toEqual([503, 429, 202]);
    // A URL channel still goes through the SSRF guard at send time.
    const strict = createDeliverer({
      guard: createSsrfGuard(),
      signingSecret: workspaceSigningSecrets(h.prisma, h.config.encryption.current.key),
      smtp: null,
      providers: h.config.alertProviders,
    });
    for (const channel of ['teams', 'discord', 'ntfy'] as const) {
      expect([channel, await strict.deliver(channel, `${fake.base}/${channel}/x`, page)]).toEqual([
        channel,
        expect.objectContaining({ status: 'failed', reason: 'ssrf_blocked' }),
      ]);
    }
  });
});

describe('acknowledged and resolved notices', () => {
  it('acknowledging sends acknowledge to PagerDuty and Opsgenie and a message to every chat channel, resolving sends resolve and close: once each, only to targets that were paged', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const s = secrets();
    const failing = `${fake.base}/ntfy/gone-${uniq()}`;
    const later = secrets();
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [...allChannels(s), { channel: 'ntfy', target: failing }] },
      // Never fires (the incident is acknowledged long before): never told anything.
      { delayMinutes: 60, targets: [{ channel: 'pagerduty', routingKey: later.routingKey }] },
    ]);
    const incident = await openIncident(ws.id);
    fake.failNext(new URL(failing).pathname, 404);
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      sent: 6,
      failed: 1,
    });

    const before = worker.escalations.length;
    const ack = await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member));
    expect(ack.status).toBe(200);
    expect(await noticeJobDone({ incidentId: incident.id, kind: 'acknowledged' }, before)).toMatchObject({
      outcome: { outcome: 'notified', sent: 6, failed: 0, duplicates: 0 },
    });
    let got = receivedFor(incident.id, s);
    for (const [channel, requests] of Object.entries(got)) {
      expect([channel, requests.length, requests.map((r) => r.problems)]).toEqual([channel, 2, [[], []]]);
    }
    expect(got.pagerduty[1]!.json).toEqual({
      routing_key: s.routingKey,
      dedup_key: incident.id,
      event_action: 'acknowledge',
    });
    expect(got.opsgenie[1]!.path).toBe(`/og/v2/alerts/${incident.id}/acknowledge?identifierType=alias`);
    expect(got.opsgenie[1]!.headers.authorization).toBe(`GenieKey ${s.apiKey}`);
    expect(got.opsgenie[1]!.json).toEqual({ source: 'Statusvane', note: expect.stringMatching(/^Acknowledged in/) });
    for (const r of [got.teams[1]!, got.discord[1]!, got.ntfy[1]!, got.telegram[1]!]) {
      expect([r.path, chatText(r)]).toEqual([r.path, expect.stringContaining('Acknowledged: API is down')]);
    }
    expect([got.ntfy[1]!.headers.priority, got.ntfy[1]!.headers.tags]).toEqual(['3', 'eyes']);

    const resolved = worker.escalations.length;
    const res = await request(h.app).post(`/api/v1/incidents/${incident.id}/resolve`).set(bearer(tokens.member));
    expect(res.status).toBe(200);
    await noticeJobDone({ incidentId: incident.id, kind: 'resolved' }, resolved);
    got = receivedFor(incident.id, s);
    for (const [channel, requests] of Object.entries(got)) expect([channel, requests.length]).toEqual([channel, 3]);
    expect(got.pagerduty[2]!.json).toEqual({
      routing_key: s.routingKey,
      dedup_key: incident.id,
      event_action: 'resolve',
    });
    expect(got.opsgenie[2]!.path).toBe(`/og/v2/alerts/${incident.id}/close?identifierType=alias`);
    for (const r of [got.teams[2]!, got.discord[2]!, got.ntfy[2]!, got.telegram[2]!]) {
      expect([r.path, chatText(r)]).toEqual([r.path, expect.stringContaining('Resolved: API is down')]);
    }
    // Not paged: the target whose page failed, and the step that never fired.
    expect(fake.to(new URL(failing).pathname)).toHaveLength(1);
    expect(fake.requests.filter((r) => r.body.includes(later.routingKey))).toHaveLength(0);

    const notices = await noticesOf(incident.id);
    expect(notices).toHaveLength(12);
    expect(notices.every((n) => n.status === 'sent' && n.attempts === 1 && n.claimedAt !== null)).toBe(true);
    expect(notices.map((n) => n.target)).not.toContain(expect.stringContaining('secret'));
    // Running the jobs again, or the sweeper, sends nothing twice. (The sweeper is global: other tests' notices may
    // be among what it finds and sends, so only what concerns this incident is counted.)
    const ours = () =>
      fake.requests.filter(
        (r) => r.body.includes(incident.id) || r.path.includes(incident.id) || r.path === new URL(failing).pathname,
      ).length;
    const total = ours();
    for (const kind of ['acknowledged', 'resolved'] as const) {
      expect(await sendIncidentNotices(deps, { incidentId: incident.id, kind })).toEqual({
        outcome: 'notified',
        sent: 0,
        failed: 0,
        skipped: 0,
        duplicates: 0,
      });
    }
    await sweepEscalations(deps);
    await new Promise((r) => setTimeout(r, 300));
    expect(ours()).toBe(total);
    // Repeating the resolution is a no-op: no new notice.
    expect(
      (await request(h.app).post(`/api/v1/incidents/${incident.id}/resolve`).set(bearer(tokens.member))).status,
    ).toBe(200);
    expect(await noticesOf(incident.id)).toHaveLength(12);
    const logs = logLines.join('');
    for (const secret of secretValues(s)) expect([secret, logs.includes(secret)]).toEqual([secret, false]);
  });

  it('a monitor recovering in the worker resolves the incident: the sweeper has the notices sent, and an acknowledgement overtaken by the resolution is skipped', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const s = secrets();
    await policyFor(ws.slug, [
      {
        delayMinutes: 0,
        targets: [
          { channel: 'pagerduty', routingKey: s.routingKey },
          { channel: 'telegram', botToken: s.botToken, chatId: s.chatId },
        ],
      },
    ]);
    const incident = await openIncident(ws.id, { source: 'monitor' });
    expect(await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 })).toMatchObject({
      sent: 2,
    });
    // As the check worker writes it (store-result.ts): no API call, no job. Acknowledged first (as if Redis had been
    // away when the API asked), then resolved.
    const at = new Date();
    await h.prisma.incident.update({
      where: { id: incident.id },
      data: { status: 'acknowledged', acknowledgedAt: at },
    });
    await h.prisma.incident.update({
      where: { id: incident.id },
      data: { status: 'resolved', resolvedAt: at, openMonitorId: null },
    });
    expect((await noticesOf(incident.id)).map((n) => [n.kind, n.channel, n.status])).toEqual([
      ['acknowledged', 'pagerduty', 'pending'],
      ['acknowledged', 'telegram', 'pending'],
      ['resolved', 'pagerduty', 'pending'],
      ['resolved', 'telegram', 'pending'],
    ]);

    // Fresh notices are left to a job the API may have asked for; 10 s later the sweeper asks itself. (The sweeper
    // is global: other suites' notices may be among what it finds, so this looks at this incident's only.)
    await reconcileNotices(deps);
    await new Promise((r) => setTimeout(r, 300));
    expect((await noticesOf(incident.id)).every((n) => n.status === 'pending' && n.claimedAt === null)).toBe(true);
    const before = worker.escalations.length;
    expect(
      (await reconcileNotices({ ...deps, now: () => new Date(Date.now() + 11_000) })).noticeJobs,
    ).toBeGreaterThanOrEqual(2);
    await noticeJobDone({ incidentId: incident.id, kind: 'resolved' }, before);
    expect(await noticeJobDone({ incidentId: incident.id, kind: 'acknowledged' }, before)).toMatchObject({
      outcome: { outcome: 'notified', sent: 0, skipped: 2 },
    });
    expect((await noticesOf(incident.id)).map((n) => [n.kind, n.status, n.reason])).toEqual([
      ['acknowledged', 'skipped', 'superseded'],
      ['acknowledged', 'skipped', 'superseded'],
      ['resolved', 'sent', null],
      ['resolved', 'sent', null],
    ]);
    const got = receivedFor(incident.id, s);
    expect(got.pagerduty.map((r) => r.json!.event_action)).toEqual(['trigger', 'resolve']);
    expect(got.telegram.map((r) => chatText(r).split('\n')[0])).toEqual([
      '🚨 API is down (impact major)',
      '✅ Resolved: API is down',
    ]);
  });

  it('a page still in flight when the incident is acknowledged gets its notice once it has gone out', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const slow = `/discord/slow-${uniq()}`;
    await policyFor(ws.slug, [{ delayMinutes: 0, targets: [{ channel: 'discord', target: `${fake.base}${slow}` }] }]);
    const incident = await openIncident(ws.id);
    fake.hold(slow);
    const firing = runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position: 0 });
    await waitFor(async () => fake.to(slow).length === 1, 5000, 'the page to reach the receiver');
    const before = worker.escalations.length;
    expect(
      (await request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member))).status,
    ).toBe(200);
    // The status change found no page sent yet: no notice from the trigger.
    expect(await noticesOf(incident.id)).toHaveLength(0);
    fake.release(slow);
    expect(await firing).toMatchObject({ outcome: 'fired', sent: 1 });
    await noticeJobDone({ incidentId: incident.id, kind: 'acknowledged' }, before);
    expect(fake.to(slow).map((r) => chatText(r).split('\n')[0])).toEqual([
      '🚨 **API is down (impact major)**',
      '👀 **Acknowledged: API is down**',
    ]);
    expect((await noticesOf(incident.id)).map((n) => [n.kind, n.status])).toEqual([['acknowledged', 'sent']]);
  });

  it('one destination listed in two steps is told once', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const s = secrets();
    const pd = { channel: 'pagerduty', routingKey: s.routingKey };
    await policyFor(ws.slug, [
      { delayMinutes: 0, targets: [pd] },
      { delayMinutes: 0, targets: [pd, { channel: 'ntfy', target: s.ntfy }] },
    ]);
    const incident = await openIncident(ws.id);
    for (const position of [0, 1]) await runEscalationStep(deps, { incidentId: incident.id, cycle: 0, position });
    await h.prisma.incident.update({
      where: { id: incident.id },
      data: { status: 'resolved', resolvedAt: new Date() },
    });
    expect(await sendIncidentNotices(deps, { incidentId: incident.id, kind: 'resolved' })).toEqual({
      outcome: 'notified',
      sent: 3,
      failed: 0,
      skipped: 0,
      duplicates: 1,
    });
    expect(fake.to('/pd/', incident.id).map((r) => r.json!.event_action)).toEqual(['trigger', 'trigger', 'resolve']);
    expect(fake.to('/ntfy/', incident.id)).toHaveLength(2);
  });
});

describe('bad targets', () => {
  it('are refused with a 400 naming every bad field, URL channels through the SSRF guard, and nothing is written', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const strict = createSsrfGuard();
    const attempt = (targets: Array<Record<string, unknown>>, guard = strict) =>
      policyFor(ws.slug, [{ delayMinutes: 0, targets }], guard).then(
        () => null,
        (err: {
          code: string;
          httpStatus: number;
          details?: { issues: Array<{ path: string; message: string }> };
        }) => ({
          code: err.code,
          status: err.httpStatus,
          paths: err.details?.issues.map((i) => i.path),
        }),
      );
    const p = (i: number, field: string) => `json.steps[0].targets[${i}].${field}`;
    expect(
      await attempt([
        { channel: 'pagerduty', routingKey: 'not-a-key' },
        { channel: 'opsgenie', apiKey: 'has spaces\r\nX-Injected: 1' },
        { channel: 'telegram', botToken: '123:abc/../../getMe', chatId: 'general' },
        { channel: 'ntfy', target: 'ntfy.sh/topic' },
        { channel: 'discord', routingKey: secrets().routingKey },
        { channel: 'teams' },
        { channel: 'telegram', botToken: secrets().botToken },
      ]),
    ).toEqual({
      code: 'invalid_request',
      status: 400,
      paths: [
        p(0, 'routingKey'),
        p(1, 'apiKey'),
        p(2, 'botToken'),
        p(2, 'chatId'),
        p(3, 'target'),
        p(4, 'target'),
        p(4, 'routingKey'),
        p(5, 'target'),
        p(6, 'chatId'),
      ],
    });
    for (const channel of ['teams', 'discord', 'ntfy']) {
      for (const target of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest', 'https://[::1]/x']) {
        expect([channel, target, await attempt([{ channel, target }])]).toEqual([
          channel,
          target,
          { code: 'invalid_request', status: 400, paths: [p(0, 'target')] },
        ]);
      }
    }
    // Provider channels have no URL of the workspace's to check: the same strict guard passes them.
    expect(
      await attempt([
        { channel: 'pagerduty', routingKey: secrets().routingKey },
        { channel: 'telegram', botToken: secrets().botToken, chatId: -100123 },
      ]),
    ).toBeNull();
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: ws.id } })).toBe(1);
  });

  it('the admin CLI prints a provider policy without its keys, and names the bad field of one it refuses', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const s = secrets();
    const admin = (json: unknown) =>
      adminCli(['policy', 'create', '--workspace', ws.slug, '--json', JSON.stringify(json)], {
        ALLOWED_TARGET_CIDRS: '',
      });
    const [good, bad] = await Promise.all([
      admin({
        name: 'Providers',
        steps: [
          {
            delayMinutes: 0,
            targets: [
              { channel: 'pagerduty', routingKey: s.routingKey },
              { channel: 'opsgenie', apiKey: s.apiKey },
              { channel: 'telegram', botToken: s.botToken, chatId: s.chatId },
            ],
          },
        ],
      }),
      admin({ name: 'Bad', steps: [{ delayMinutes: 0, targets: [{ channel: 'opsgenie', apiKey: 'a b' }] }] }),
    ]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout).steps[0].targets.map((t: { display: string }) => t.display)).toEqual([
      `routing key …${s.routingKey.slice(-4)}`,
      `API key …${s.apiKey.slice(-4)}`,
      `chat ${s.chatId}`,
    ]);
    for (const secret of secretValues(s)) expect([secret, good.stdout.includes(secret)]).toEqual([secret, false]);
    expect([bad.code === 0, bad.stdout]).toEqual([false, '']);
    expect(bad.stderr).toContain('json.steps[0].targets[0].apiKey');
  }, 30_000);
});
