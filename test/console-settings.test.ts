// The console's settings: members and invitations (the mail goes out as POST /members sends it; resend; role with
// its version, a stale one 409 showing the current role; remove), API tokens and wall views (shown once, revoked),
// escalation policies (create with 400s beside fields, settings with a stale version 409, the ladder, default,
// delete, test send showing each target's result, the signing secret revealed once and rotated), webhooks (secret
// once, edit, replay, delete, deliveries) and the audit log; a viewer sees none of the controls and a forged write
// is 403. Every write is audited as the user.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  bearer,
  createMonitorNamed,
  makeHarness,
  makeUser,
  makeWorkspace,
  uniq,
  type Harness,
} from './support/harness.js';
import { consoleBrowser, csrfOf, linkInMail, signedInAs, TEST_PASSWORD } from './support/console.js';
import { startSmtp } from './support/smtp.js';
import { waitFor } from './support/worker-harness.js';

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  h = makeHarness({ SMTP_URL: smtp.url, SMTP_FROM: 'Statusvane <console@statusvane.test>' });
});
afterAll(async () => {
  await h.close();
  await smtp.close();
});

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;
const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));

const signedIn = (w: Workspace, role: 'owner' | 'admin' | 'member' | 'viewer') => signedInAs(h, w.ws.id, role);

describe('members', () => {
  it('adds a member by email and role (the invitation mail goes out), resends it, shows passwordSet', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b, user } = await signedIn(w, 'admin');
    const page = `/app/${w.ws.slug}/settings/members`;
    const email = `${uniq('new')}@example.test`;
    const bad = await b.submit(page, { email: 'not an address', role: 'member' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-email-error" class="field-error">/);
    expect(bad.text).toContain('value="not an address"');
    // An admin is not offered owner, and a forged one is refused by the service's owner rule.
    expect(bad.text).not.toContain('<option value="owner"');
    expect((await b.submit(page, { email, role: 'owner' })).status).toBe(403);

    const added = await b.submit(page, { email: email.toUpperCase(), role: 'member' });
    expect([added.status, added.headers.location]).toEqual([303, `${page}?done=added`]);
    const first = await waitFor(async () => mailsTo(email)[0], 10_000, 'the invitation mail');
    expect(first.raw).toMatch(/Subject: You are invited to Test workspace on Statusvane/);
    const list = await b.get(page);
    const newUser = await h.prisma.user.findUniqueOrThrow({ where: { email } });
    expect(list.text).toMatch(new RegExp(`<tr id="member-${newUser.id}">.*?Invited, no password yet`, 's'));
    expect(list.text).toMatch(new RegExp(`<tr id="member-${user.id}">.*?Password set`, 's'));
    const again = await b.submit(page, { email, role: 'viewer' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('is already a member of this workspace');

    // Resend: a new mail, the old link void.
    const resent = await b.submit(page, {}, `${page}/${newUser.id}/invitation`);
    expect([resent.status, resent.headers.location]).toEqual([303, `${page}?done=invited`]);
    const second = await waitFor(async () => mailsTo(email)[1], 10_000, 'the second invitation');
    const oldLink = linkInMail(first.raw, '/app/invite/');
    const newLink = linkInMail(second.raw, '/app/invite/');
    expect(newLink).not.toBe(oldLink);
    const invitee = consoleBrowser(h);
    expect((await invitee.get(oldLink)).status).toBe(404);
    expect((await invitee.submit(newLink, { password: TEST_PASSWORD, confirm: TEST_PASSWORD })).status).toBe(303);
    await invitee.signIn(email, TEST_PASSWORD);
    expect((await b.get(page)).text).toMatch(new RegExp(`<tr id="member-${newUser.id}">.*?Password set`, 's'));
    // Once a password is set, no resend: 409 with the reason on the page.
    const noMore = await b.submit(page, {}, `${page}/${newUser.id}/invitation`);
    expect(noMore.status).toBe(409);
    expect(noMore.text).toContain('has a password already');
    // Over the API too.
    const api = await request(h.app).post(`/api/v1/members/${newUser.id}/invitation`).set(bearer(w.tokens.admin));
    expect([api.status, api.body.error.details.reason]).toEqual([409, 'password_set']);
    const audit = await h.prisma.auditEvent.findMany({
      where: { workspaceId: w.ws.id, resourceId: newUser.id },
      orderBy: { at: 'asc' },
    });
    expect(audit.map((e) => [e.action, e.actorId])).toEqual([
      ['member.created', user.id],
      ['member.invitation_sent', user.id],
      ['user.password_set', newUser.id],
    ]);
  });

  it('changes a role with its version (a stale one is 409 with the current role shown) and removes a member', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'owner');
    const other = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
    const page = `/app/${w.ws.slug}/settings/members`;
    const html = (await b.get(page)).text;
    const version = new RegExp(
      `action="${page}/${other.id}/role"[^>]*><input type="hidden" name="_csrf" value="[^"]+"/><input type="hidden" name="version" value="(\\d+)"`,
    ).exec(html)![1]!;
    // Someone else makes them an admin meanwhile.
    await request(h.app).patch(`/api/v1/members/${other.id}`).set(bearer(w.tokens.owner)).send({ role: 'admin' });
    const stale = await b.submit(page, { version, role: 'viewer' }, `${page}/${other.id}/role`);
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('was changed by someone else');
    expect(stale.text).toMatch(new RegExp(`id="role-${other.id}" name="role">.*?<option value="admin" selected>`, 's'));
    expect((await h.prisma.membership.findFirstOrThrow({ where: { userId: other.id } })).role).toBe('admin');

    const fresh = await b.submit(
      page,
      { version: String(Number(version) + 1), role: 'viewer' },
      `${page}/${other.id}/role`,
    );
    expect([fresh.status, fresh.headers.location]).toEqual([303, `${page}?done=role`]);
    expect((await h.prisma.membership.findFirstOrThrow({ where: { userId: other.id } })).role).toBe('viewer');
    const invalid = await b.submit(page, { role: 'boss' }, `${page}/${other.id}/role`);
    expect(invalid.status).toBe(400);

    const removed = await b.submit(page, {}, `${page}/${other.id}/remove`);
    expect(removed.status).toBe(303);
    expect(await h.prisma.membership.count({ where: { workspaceId: w.ws.id, userId: other.id } })).toBe(0);
  });
});

describe('API tokens and wall views', () => {
  it('shows a new token once, revokes it; shows a wall link once, which works until deleted', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'admin');
    const tokens = `/app/${w.ws.slug}/settings/tokens`;
    const bad = await b.submit(tokens, { name: '', role: 'member', expiresInDays: '0' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-name-error"/);
    expect(bad.text).toMatch(/id="f-expiresInDays-error"/);
    const created = await b.submit(tokens, { name: 'Deploys', role: 'member', expiresInDays: '' });
    expect(created.status).toBe(200);
    const token = /<code id="new-token" class="secret-value">(sv_[^<]+)<\/code>/.exec(created.text)![1]!;
    expect((await request(h.app).get('/api/v1/monitors').set(bearer(token))).status).toBe(200);
    const list = await b.get(tokens);
    expect(list.text).not.toContain(token);
    expect(list.text).toContain('Deploys');
    const id = (await h.prisma.apiToken.findFirstOrThrow({ where: { workspaceId: w.ws.id, name: 'Deploys' } })).id;
    const revoked = await b.submit(tokens, { version: '1' }, `${tokens}/${id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await request(h.app).get('/api/v1/monitors').set(bearer(token))).status).toBe(401);

    const walls = `/app/${w.ws.slug}/settings/wall`;
    const wall = await b.submit(walls, { name: 'Office screen' });
    expect(wall.status).toBe(200);
    const url = /<code id="new-wall" class="secret-value">([^<]+)<\/code>/.exec(wall.text)![1]!;
    const path = new URL(url).pathname;
    expect((await request(h.app).get(path)).status).toBe(200);
    expect((await b.get(walls)).text).not.toContain(path);
    const wallId = (await h.prisma.wallToken.findFirstOrThrow({ where: { workspaceId: w.ws.id } })).id;
    expect((await b.submit(walls, { version: '7' }, `${walls}/${wallId}/delete`)).status).toBe(409);
    expect((await request(h.app).get(path)).status).toBe(200);
    expect((await b.submit(walls, { version: '1' }, `${walls}/${wallId}/delete`)).status).toBe(303);
    expect((await request(h.app).get(path)).status).toBe(404);
  });
});

describe('escalation policies', () => {
  it('creates a policy (400s beside step fields), edits settings (stale: 409), replaces the ladder, tests, defaults, deletes', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b, user } = await signedIn(w, 'admin');
    const base = `/app/${w.ws.slug}/settings/escalation-policies`;
    const bad = await b.submit(`${base}/new`, {
      name: 'On call',
      repeatCount: '1',
      'steps.0.delayMinutes': '10',
      'steps.0.targets.0.channel': 'email',
      'steps.0.targets.0.value': 'not-an-email',
      'steps.1.delayMinutes': '5',
      'steps.1.targets.0.channel': 'pagerduty',
      'steps.1.targets.0.value': 'short',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-steps.0.targets.0.value-error" class="field-error">/);
    expect(bad.text).toMatch(/id="f-steps.1.targets.0.value-error" class="field-error">must be the 32-character/);
    expect(bad.text).toMatch(
      /id="f-steps.1.delayMinutes-error" class="field-error">must be at least the previous step delay/,
    );
    expect(bad.text).toContain('value="not-an-email"');

    const ok = await b.submit(`${base}/new`, {
      name: 'On call',
      repeatCount: '0',
      'steps.0.delayMinutes': '0',
      'steps.0.targets.0.channel': 'email',
      'steps.0.targets.0.value': 'oncall@example.test',
      'steps.0.targets.1.channel': 'webhook',
      'steps.0.targets.1.value': 'https://hooks.example.test/secret-path?token=abc',
    });
    expect(ok.status).toBe(303);
    const id = /escalation-policies\/([0-9a-f-]{36})\?done=created$/.exec(ok.headers.location as string)![1]!;
    const page = await b.get(`${base}/${id}`);
    expect(page.text).toContain('oncall@example.test');
    expect(page.text).toContain('https://hooks.example.test/…');
    expect(page.text).not.toContain('secret-path');
    // Secrets are never drawn into the form: the email address is, the webhook URL is not.
    expect(page.text).toContain('name="steps.0.targets.0.value" type="text" value="oncall@example.test"');
    expect(page.text).toContain('name="steps.0.targets.1.value" type="text" autocomplete="off"/>');

    // Test send: each target's result (the mail is accepted; the webhook's host does not resolve).
    const tested = await b.submit(`${base}/${id}`, {}, `${base}/${id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.text).toMatch(
      /oncall@example.test<\/span><\/td><td data-label="Result"><span class="tag tag-ok">Delivered/,
    );
    expect(tested.text).toMatch(
      /hooks.example.test\/…<\/span><\/td><td data-label="Result"><span class="tag tag-bad">Failed: /,
    );

    // Settings with a stale version: 409 and the current values.
    await request(h.app)
      .patch(`/api/v1/escalation-policies/${id}`)
      .set(bearer(w.tokens.owner))
      .send({ name: 'Primary' });
    const stale = await b.submit(
      `${base}/${id}`,
      { version: '1', name: 'Mine', repeatCount: '2' },
      `${base}/${id}/settings`,
    );
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('name="name" type="text" value="Primary"');
    const saved = await b.submit(
      `${base}/${id}`,
      { version: '2', name: 'Mine', repeatCount: '2', silent: 'on' },
      `${base}/${id}/settings`,
    );
    expect(saved.status).toBe(303);
    expect(
      await request(h.app)
        .get(`/api/v1/escalation-policies/${id}`)
        .set(bearer(w.tokens.viewer))
        .then((r) => r.body.data),
    ).toMatchObject({
      name: 'Mine',
      repeatCount: 2,
      silent: true,
      version: 3,
    });
    // The ladder: a secret left empty is a 400 at its field.
    const ladderBad = await b.submit(
      `${base}/${id}`,
      {
        version: '3',
        'steps.0.delayMinutes': '0',
        'steps.0.targets.0.channel': 'telegram',
        'steps.0.targets.0.value': '123456:abcdefghijklmnopqrstuvwxyz',
        'steps.0.targets.0.chatId': 'nope',
      },
      `${base}/${id}/ladder`,
    );
    expect(ladderBad.status).toBe(400);
    expect(ladderBad.text).toMatch(
      /id="f-steps.0.targets.0.chatId-error" class="field-error">must be a numeric chat id/,
    );
    const ladder = await b.submit(
      `${base}/${id}`,
      {
        version: '3',
        'steps.0.delayMinutes': '0',
        'steps.0.targets.0.channel': 'email',
        'steps.0.targets.0.value': 'first@example.test',
        'steps.1.delayMinutes': '15',
        'steps.1.minImpact': 'major',
        'steps.1.targets.0.channel': 'email',
        'steps.1.targets.0.value': 'boss@example.test',
      },
      `${base}/${id}/ladder`,
    );
    expect(ladder.status).toBe(303);
    const after = await h.prisma.escalationStep.findMany({ where: { policyId: id }, orderBy: { position: 'asc' } });
    expect(after.map((s) => [s.delayMinutes, s.minImpact])).toEqual([
      [0, 'none'],
      [15, 'major'],
    ]);

    expect((await b.submit(`${base}/${id}`, { version: '4' }, `${base}/${id}/default`)).status).toBe(303);
    expect((await b.get(base)).text).toMatch(/>Mine<\/a><span class="tag tag-ok">Default<\/span>/);
    expect((await b.submit(`${base}/${id}`, { version: '5' }, `${base}/${id}/delete`)).status).toBe(303);
    expect((await b.get(`${base}/${id}`)).status).toBe(404);
    const actions = await h.prisma.auditEvent.findMany({
      where: { workspaceId: w.ws.id, resourceId: id, actorId: user.id },
      orderBy: { at: 'asc' },
    });
    expect(actions.map((e) => e.action)).toEqual([
      'escalation_policy.created',
      'escalation_policy.updated',
      'escalation_policy.updated',
      'escalation_policy.updated',
      'escalation_policy.deleted',
    ]);
  });

  it('reveals the signing secret once (then 409), rotates it (shown once)', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'owner');
    const base = `/app/${w.ws.slug}/settings/escalation-policies`;
    const shown = await b.submit(base, {}, `${base}/signing-secret/reveal`);
    expect(shown.status).toBe(200);
    const secret = /<code id="signing-secret" class="secret-value">([0-9a-f]+)<\/code>/.exec(shown.text)![1]!;
    expect((await b.get(base)).text).not.toContain(secret);
    const again = await b.submit(base, {}, `${base}/signing-secret/reveal`);
    expect(again.status).toBe(409);
    expect(again.text).not.toContain(secret);
    const rotated = await b.submit(base, {}, `${base}/signing-secret/rotate`);
    expect(rotated.status).toBe(200);
    const next = /<code id="signing-secret" class="secret-value">([0-9a-f]+)<\/code>/.exec(rotated.text)![1]!;
    expect(next).not.toBe(secret);
    expect(rotated.text).toContain('generation 1');
  });
});

describe('webhooks', () => {
  it('creates one (secret once), edits it with its version, replays, lists deliveries, deletes it', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'admin');
    const base = `/app/${w.ws.slug}/settings/webhooks`;
    const bad = await b.submit(base, { url: 'ftp://example.test/x', description: 'CI' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-url-error" class="field-error">/);
    expect(bad.text).toContain('value="CI"');
    const created = await b.submit(base, {
      url: 'https://93.184.215.14/hook?token=a-secret',
      description: 'Chat bridge',
      'types.incident.opened': 'on',
    });
    expect(created.status).toBe(200);
    expect(created.text).toMatch(/<code id="webhook-secret" class="secret-value">whsec_/);
    const hook = await h.prisma.webhook.findFirstOrThrow({ where: { workspaceId: w.ws.id } });
    expect(hook.types).toEqual(['incident.opened']);
    const page = await b.get(`${base}/${hook.id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('a-secret');
    expect(page.text).toContain('Nothing delivered yet');
    const edited = await b.submit(`${base}/${hook.id}`, {
      version: '1',
      url: '',
      description: 'Bridge',
      'types.incident.resolved': 'on',
    });
    expect(edited.status).toBe(303);
    const after = await h.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect([after.description, after.types, after.urlDisplay]).toEqual([
      'Bridge',
      ['incident.resolved'],
      hook.urlDisplay,
    ]);
    const stale = await b.submit(`${base}/${hook.id}`, { version: '1', description: 'Old' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('value="Bridge"');
    const replayBad = await b.submit(`${base}/${hook.id}`, { after: 'zz' }, `${base}/${hook.id}/replay`);
    expect(replayBad.status).toBe(400);
    expect(replayBad.text).toMatch(/id="f-after-error"/);
    expect((await b.submit(`${base}/${hook.id}`, { after: '' }, `${base}/${hook.id}/replay`)).status).toBe(303);
    expect((await b.submit(`${base}/${hook.id}`, { version: '2' }, `${base}/${hook.id}/delete`)).status).toBe(303);
    expect(await h.prisma.webhook.count({ where: { id: hook.id } })).toBe(0);
  });
});

describe('settings for a viewer', () => {
  it('shows members and policies read-only, hides the managers’ sections, and refuses every forged write', async () => {
    const w = await makeWorkspace(h.prisma);
    const other = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
    const { b } = await signedIn(w, 'viewer');
    const s = `/app/${w.ws.slug}/settings`;
    const members = await b.get(`${s}/members`);
    expect(members.status).toBe(200);
    expect(members.text.match(/<form method="post"/g)).toHaveLength(1); // sign out
    expect(members.text).not.toContain(`${s}/tokens"`);
    expect(members.text).not.toContain(`${s}/audit"`);
    expect((await b.get(`${s}/escalation-policies`)).text.match(/<form method="post"/g)).toHaveLength(1);
    for (const page of ['tokens', 'webhooks', 'wall', 'audit'])
      expect([page, (await b.get(`${s}/${page}`)).status]).toEqual([page, 403]);
    const csrf = csrfOf(members.text);
    const forged: Array<[string, Record<string, string>]> = [
      [`${s}/members`, { email: 'x@example.test', role: 'owner' }],
      [`${s}/members/${other.id}/role`, { role: 'owner' }],
      [`${s}/members/${other.id}/remove`, {}],
      [`${s}/members/${other.id}/invitation`, {}],
      [`${s}/tokens`, { name: 'x', role: 'owner' }],
      [`${s}/wall`, { name: 'x' }],
      [`${s}/escalation-policies/new`, { name: 'x' }],
      [`${s}/escalation-policies/signing-secret/reveal`, {}],
      [`${s}/webhooks`, { url: 'https://93.184.215.14/' }],
    ];
    for (const [path, fields] of forged)
      expect([path, (await b.post(path, { _csrf: csrf, ...fields })).status]).toEqual([path, 403]);
    expect((await h.prisma.membership.findFirstOrThrow({ where: { userId: other.id } })).role).toBe('member');
    expect(await h.prisma.apiToken.count({ where: { workspaceId: w.ws.id, name: 'x' } })).toBe(0);
  });

  it('the audit log shows who changed what, newest first, for managers', async () => {
    const w = await makeWorkspace(h.prisma);
    await request(h.app).post('/api/v1/wall-tokens').set(bearer(w.tokens.owner)).send({ name: 'Lobby' });
    const monitor = await createMonitorNamed(h, w, 'Shop');
    await request(h.app).patch(`/api/v1/monitors/${monitor.id}`).set(bearer(w.tokens.owner)).send({ name: 'Webshop' });
    const { b } = await signedIn(w, 'admin');
    const page = await b.get(`/app/${w.ws.slug}/settings/audit`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('wall_token.created');
    // A created record's fields as their values; a change as before → after; a long list folds its rest away.
    expect(page.text).toMatch(/<span class="mono">name<\/span>: Lobby</);
    expect(page.text).toMatch(/<span class="mono">name<\/span>: Shop → Webshop</);
    expect(page.text).toMatch(/<details class="changes-more"><summary>\d+ more fields<\/summary>/);
    const monitors = await b.get(`/app/${w.ws.slug}/settings/audit?resourceType=monitor`);
    expect(monitors.text).toContain('monitor.updated');
    expect(monitors.text).not.toContain('wall_token.created');
    const filtered = await b.get(`/app/${w.ws.slug}/settings/audit?resourceType=webhook`);
    expect(filtered.text).toContain('Nothing recorded yet');
    expect((await b.get(`/app/${w.ws.slug}/settings/audit?resourceType=nope`)).status).toBe(400);
  });
});
