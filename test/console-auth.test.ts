// Console sign-in on the real app, PostgreSQL and Redis: sessions, lockout, CSRF and Origin, invitation and reset
// links by mail (a local SMTP server), the TOTP second factor with recovery codes, and sign-out.
import { randomInt } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger, hashToken } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { createWorkspace } from '../apps/api/src/admin/admin-commands.js';
import { createSignInGuard } from '../apps/api/src/services/users/sign-in-guard.js';
import { base32Decode, hotp, totpStep } from '../apps/api/src/services/users/totp.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { consoleBrowser, csrfOf, linkInMail, setCookie, setUserPassword, signedInAs } from './support/console.js';
import { startSmtp } from './support/smtp.js';
import { waitFor } from './support/worker-harness.js';

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  // X-Forwarded-For from the test client is believed, so each test signs in from addresses of its own.
  h = makeHarness({ SMTP_URL: smtp.url, SMTP_FROM: 'Statusvane <console@statusvane.test>', TRUST_PROXY: 'loopback' });
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

/** A client address of its own for each browser: lockout counts per address. */
const anAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const browser = (address = anAddress()) => consoleBrowser(h, { address });

/** A workspace and a member of it with a password. */
async function member(role: 'owner' | 'admin' | 'member' | 'viewer' = 'owner') {
  const w = await makeWorkspace(h.prisma);
  const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role }]);
  await setUserPassword(h.prisma, user.email, PASSWORD);
  return { w, user };
}

const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));
const flashOf = (html: string) => /class="flash[^"]*"[^>]*>([^<]*)</.exec(html)?.[1];

describe('sessions', () => {
  it('signs in with a new session id in an HttpOnly, SameSite=Lax cookie, stored only as its hash', async () => {
    const { w, user } = await member();
    const b = browser();
    const first = await b.signIn(user.email, PASSWORD);
    expect(first.headers.location).toBe('/app');
    const line = (first.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('sv_session='))!;
    expect(line).toMatch(/; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    const token = setCookie(first, 'sv_session')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await h.prisma.consoleSession.findMany({ where: { userId: user.id } });
    expect(rows.map((r) => r.tokenHash)).toEqual([hashToken(token)]);

    // One workspace: straight in.
    expect((await b.get('/app')).headers.location).toBe(`/app/${w.ws.slug}/monitors`);
    expect((await b.get(`/app/${w.ws.slug}/monitors`)).status).toBe(200);

    // Signing in again (in the same browser) replaces the id; the old one is ended.
    const second = await b.submit('/app/account', { email: user.email, password: PASSWORD }, '/app/login');
    expect(second.status).toBe(303);
    const token2 = setCookie(second, 'sv_session')!;
    expect(token2).not.toBe(token);
    expect((await h.prisma.consoleSession.findMany({ where: { userId: user.id } })).map((r) => r.tokenHash)).toEqual([
      hashToken(token2),
    ]);
    const replay = await request(h.app).get(`/app/${w.ws.slug}/monitors`).set('Cookie', `sv_session=${token}`);
    expect(replay.status).toBe(303);
    expect(replay.headers.location).toBe(`/app/login?next=${encodeURIComponent(`/app/${w.ws.slug}/monitors`)}`);

    // The API ignores the cookie: only a bearer token opens it.
    const api = await request(h.app).get('/api/v1/monitors').set('Cookie', `sv_session=${token2}`);
    expect(api.status).toBe(401);
  });

  it('refuses a wrong password, an unknown email and a user without a password with the same answer', async () => {
    const { user } = await member();
    const unset = await makeUser(h.prisma, []);
    const answers = [];
    for (const [email, password] of [
      [user.email, 'not the password at all'],
      ['nobody-here@example.test', PASSWORD],
      [unset.email, PASSWORD],
      [user.email, ''],
      [user.email, 'x'.repeat(300)],
    ] as const) {
      const res = await browser().submit('/app/login', { email, password });
      answers.push([res.status, flashOf(res.text), setCookie(res, 'sv_session') ?? null]);
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual([401, 'The email or password is not right.', null]);
  });

  it('ends a session after 12 idle hours, and after 30 days whatever happens', async () => {
    const { w, user } = await member();
    const clock = { now: Date.now() };
    const app = createApp({ ...h.deps, clock: () => new Date(clock.now) });
    const origin = new URL(h.config.publicBaseUrl).origin;
    const agent = request.agent(app);
    const login = await agent.get('/app/login');
    const signed = await agent
      .post('/app/login')
      .set('Origin', origin)
      .type('form')
      .send({ _csrf: csrfOf(login.text), email: user.email, password: PASSWORD });
    expect(signed.status).toBe(303);
    const page = `/app/${w.ws.slug}/monitors`;
    // The touch of lastSeenAt is not awaited by the request: wait until it landed before moving the clock on.
    const touched = (token: string) =>
      waitFor(
        async () =>
          (
            await h.prisma.consoleSession.findUnique({ where: { tokenHash: hashToken(token) } })
          )?.lastSeenAt.getTime() === clock.now,
        5_000,
        'the session touch',
      );
    const first = setCookie(signed, 'sv_session')!;
    // Used every 11 hours for 29 days: still in.
    for (let t = 11 * HOUR; t < 29 * 24 * HOUR; t += 11 * HOUR) {
      clock.now += 11 * HOUR;
      expect((await agent.get(page)).status).toBe(200);
      await touched(first);
    }
    clock.now = Date.now() + 30 * 24 * HOUR + 1000;
    expect((await agent.get(page)).status).toBe(303);

    // Idle: 12 hours without a request.
    const again = request.agent(app);
    clock.now = Date.now();
    const form = await again.get('/app/login');
    const second = await again
      .post('/app/login')
      .set('Origin', origin)
      .type('form')
      .send({ _csrf: csrfOf(form.text), email: user.email, password: PASSWORD });
    clock.now += 11 * HOUR;
    expect((await again.get(page)).status).toBe(200);
    await touched(setCookie(second, 'sv_session')!);
    clock.now += 12 * HOUR;
    expect((await again.get(page)).status).toBe(303);
  });

  it('signs out: the session ends at once; a sign-out without the CSRF token changes nothing', async () => {
    const { w, user } = await member();
    const b = browser();
    await b.signIn(user.email, PASSWORD);
    const page = `/app/${w.ws.slug}/monitors`;
    const shown = await b.get(page);
    expect(shown.text).toContain('Sign out');

    const forged = await b.post('/app/logout', {});
    expect(forged.status).toBe(403);
    expect((await b.get(page)).status).toBe(200);

    const out = await b.post('/app/logout', { _csrf: csrfOf(shown.text) });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/app/login?done=signed-out');
    expect(await h.prisma.consoleSession.count({ where: { userId: user.id } })).toBe(0);
    expect((await b.get(page)).status).toBe(303);
    expect(flashOf((await b.get('/app/login?done=signed-out')).text)).toBe('You are signed out.');
  });

  it('follows `next` only to a path under /app/ or /oauth/authorize', async () => {
    const { w, user } = await member();
    const page = `/app/${w.ws.slug}/monitors?status=down`;
    const b = browser();
    const bounced = await b.get(page);
    expect(bounced.headers.location).toBe(`/app/login?next=${encodeURIComponent(page)}`);
    const form = await b.get(bounced.headers.location!);
    expect(form.text).toContain(`name="next" value="/app/${w.ws.slug}/monitors?status=down"`);
    const res = await b.post('/app/login', {
      _csrf: csrfOf(form.text),
      email: user.email,
      password: PASSWORD,
      next: page,
    });
    expect(res.headers.location).toBe(page);
    for (const next of ['https://evil.example/app/x', '//evil.example/app', '/api/v1/tokens', '/app/../api/v1']) {
      const other = browser();
      const r = await other.submit('/app/login', { email: user.email, password: PASSWORD, next });
      expect([next, r.headers.location]).toEqual([next, '/app']);
    }
  });

  it('a password change ends every session of the user, and keeps the browser that made it signed in', async () => {
    const { w, user } = await member();
    const page = `/app/${w.ws.slug}/monitors`;
    const elsewhere = browser();
    await elsewhere.signIn(user.email, PASSWORD);
    const here = browser();
    await here.signIn(user.email, PASSWORD);

    const weak = await here.submit(
      '/app/account',
      { current: PASSWORD, password: 'short', confirm: 'short' },
      '/app/account/password',
    );
    expect(weak.status).toBe(400);
    expect(weak.text).toMatch(/id="f-password-error" class="field-error">must be at least 12 characters</);
    const wrong = await here.submit(
      '/app/account',
      { current: 'not my password!', password: 'a brand new password', confirm: 'a brand new password' },
      '/app/account/password',
    );
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('is not your current password');

    const changed = await here.submit(
      '/app/account',
      { current: PASSWORD, password: 'a brand new password', confirm: 'a brand new password' },
      '/app/account/password',
    );
    expect(changed.status).toBe(303);
    expect(setCookie(changed, 'sv_session')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await here.get(page)).status).toBe(200);
    expect((await elsewhere.get(page)).status).toBe(303);
    expect(await h.prisma.consoleSession.count({ where: { userId: user.id } })).toBe(1);
    const events = await h.prisma.auditEvent.findMany({
      where: { workspaceId: w.ws.id, action: 'user.password_changed' },
    });
    expect(events.map((e) => [e.actorType, e.actorId, e.resourceId])).toEqual([['user', user.id, user.id]]);
  });

  it('removing a member ends their access to that workspace at once; a new role applies on the next request', async () => {
    const { w, user } = await member('member');
    const page = `/app/${w.ws.slug}/monitors`;
    const b = browser();
    await b.signIn(user.email, PASSWORD);
    expect((await b.get(page)).status).toBe(200);
    const demoted = await request(h.app)
      .patch(`/api/v1/members/${user.id}`)
      .set(bearer(w.tokens.owner))
      .send({ role: 'viewer' });
    expect(demoted.status).toBe(200);
    const removed = await request(h.app).delete(`/api/v1/members/${user.id}`).set(bearer(w.tokens.owner));
    expect(removed.status).toBe(204);
    const after = await b.get(page);
    expect(after.status).toBe(404);
    expect(after.text).toContain('You are not a member of a workspace at this address.');
  });

  it('names the cookies __Host-… (Secure) when the console is served over https', async () => {
    const https = makeHarness({ PUBLIC_BASE_URL: 'https://status.example.test' });
    try {
      const { user } = await member();
      const form = await request(https.app).get('/app/login');
      const pre = setCookie(form, '__Host-sv_csrf')!;
      expect((form.headers['set-cookie'] as unknown as string[])[0]).toMatch(
        /^__Host-sv_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      );
      const res = await request(https.app)
        .post('/app/login')
        .set({ Origin: 'https://status.example.test', Cookie: `__Host-sv_csrf=${pre}` })
        .type('form')
        .send({ _csrf: csrfOf(form.text), email: user.email, password: PASSWORD });
      expect(res.status).toBe(303);
      const line = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('__Host-sv_session='));
      expect(line).toMatch(/; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
      // The plain name means nothing there.
      const plain = await request(https.app)
        .get('/app/account')
        .set('Cookie', `sv_session=${setCookie(res, '__Host-sv_session')}`);
      expect(plain.status).toBe(303);
    } finally {
      await https.close();
    }
  });
});

describe('lockout', () => {
  it('locks an (email, address) pair after 10 failures for 15 minutes, answering as for a wrong password', async () => {
    const { user } = await member();
    const address = anAddress();
    for (let i = 0; i < 10; i++) {
      const res = await browser(address).submit('/app/login', { email: user.email, password: `wrong guess ${i}!` });
      expect(res.status).toBe(401);
    }
    const locked = await browser(address).submit('/app/login', { email: user.email, password: PASSWORD });
    expect([locked.status, flashOf(locked.text), setCookie(locked, 'sv_session')]).toEqual([
      401,
      'The email or password is not right.',
      undefined,
    ]);
    // The lock is the pair's: the owner signs in from anywhere else.
    expect((await browser().signIn(user.email, PASSWORD)).status).toBe(303);
  });

  it('locks an address after 100 failures whatever the emails', async () => {
    const { user } = await member();
    const address = anAddress();
    const guard = createSignInGuard(h.redis);
    for (let i = 0; i < 99; i++) await guard.failed(`someone-${i}@example.test`, address);
    expect((await browser(address).signIn(user.email, PASSWORD)).status).toBe(303);
    await guard.failed('one-more@example.test', address);
    const res = await browser(address).submit('/app/login', { email: user.email, password: PASSWORD });
    expect([res.status, flashOf(res.text)]).toEqual([401, 'The email or password is not right.']);
  });

  it('failures of one email from many addresses slow its sign-in down but never lock its owner out', async () => {
    const { user } = await member();
    const guard = createSignInGuard(h.redis);
    for (let i = 0; i < 30; i++) await guard.failed(user.email, anAddress());
    const b = browser();
    const form = await b.get('/app/login');
    const started = Date.now();
    const res = await b.post('/app/login', { _csrf: csrfOf(form.text), email: user.email, password: PASSWORD });
    expect(res.status).toBe(303);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });
});

describe('CSRF and Origin', () => {
  it('refuses a sign-in without the token, with another site’s Origin, or with neither Origin nor Referer', async () => {
    const { user } = await member();
    const b = browser();
    const form = await b.get('/app/login');
    const csrf = csrfOf(form.text);
    const fields = { email: user.email, password: PASSWORD };
    const cases = [
      await b.post('/app/login', fields),
      await b.post('/app/login', { ...fields, _csrf: 'x'.repeat(43) }),
      await b.post('/app/login', { ...fields, _csrf: csrf }, { Origin: 'https://evil.example' }),
      await b.post('/app/login', { ...fields, _csrf: csrf }, { Origin: 'null' }),
      await b.post('/app/login', { ...fields, _csrf: csrf }, {}),
      await b.post('/app/login', { ...fields, _csrf: csrf }, { Referer: 'https://evil.example/app/login' }),
      // Another browser's token does not fit this browser's cookie.
      await b.post('/app/login', { ...fields, _csrf: csrfOf((await browser().get('/app/login')).text) }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('nothing was changed');
      expect(setCookie(res, 'sv_session')).toBeUndefined();
    }
    expect(await h.prisma.consoleSession.count({ where: { userId: user.id } })).toBe(0);
    // The same browser with its token and a same-origin Referer (no Origin) is let in.
    const ok = await b.post('/app/login', { ...fields, _csrf: csrf }, { Referer: `${b.origin}/app/login` });
    expect(ok.status).toBe(303);
  });
});

describe('invitations and resets by mail', () => {
  it('POST /members mails a user without a password a one-time link to choose one', async () => {
    const { w } = await member();
    const email = `invitee-${randomInt(1e9)}@example.test`;
    const added = await request(h.app)
      .post('/api/v1/members')
      .set(bearer(w.tokens.owner))
      .send({ email, role: 'member' });
    expect(added.status).toBe(201);
    expect(added.body.data.passwordSet).toBe(false);
    const mail = await waitFor(async () => mailsTo(email)[0], 10_000, 'the invitation mail');
    expect(mail.raw).toMatch(/Subject: You are invited to Test workspace on Statusvane/);
    const link = linkInMail(mail.raw, '/app/invite/');
    const stored = await h.prisma.passwordLink.findMany({ where: { user: { email } } });
    expect(stored.map((l) => [l.purpose, l.tokenHash])).toEqual([['invite', hashToken(link.split('/').pop()!)]]);
    expect(stored[0]!.expiresAt.getTime() - stored[0]!.createdAt.getTime()).toBeCloseTo(48 * HOUR, -4);

    const b = browser();
    const page = await b.get(link);
    expect(page.status).toBe(200);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain(`Choose a password for ${email}`);
    const mismatch = await b.submit(link, { password: 'a good long password', confirm: 'another one entirely' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toMatch(/id="f-confirm-error" class="field-error">does not match the password above</);
    expect(mismatch.text).toMatch(/aria-invalid="true" aria-describedby="f-confirm-error"/);
    // Under the page's no-referrer policy a browser sends `Origin: null` and no Referer: the link's form takes that
    // (its URL's token is the proof), still not without the CSRF token; no other form does.
    const csrf = csrfOf((await b.get(link)).text);
    const withoutToken = await b.post(link, { password: 'x', confirm: 'x' }, { Origin: 'null' });
    expect(withoutToken.status).toBe(403);
    expect((await b.post('/app/forgot', { _csrf: csrf, email }, { Origin: 'null' })).status).toBe(403);
    const nullOrigin = await b.post(link, { _csrf: csrf, password: 'short', confirm: 'short' }, { Origin: 'null' });
    expect(nullOrigin.status).toBe(400);
    const set = await b.submit(link, { password: 'a good long password', confirm: 'a good long password' });
    expect(set.status).toBe(303);
    expect(set.headers.location).toBe('/app/login?done=password-set');

    // Used once.
    const again = await b.get(link);
    expect(again.status).toBe(404);
    expect(again.headers['referrer-policy']).toBe('no-referrer');
    expect((await browser().signIn(email, 'a good long password')).headers.location).toBe('/app');
    const listed = await request(h.app).get('/api/v1/members').set(bearer(w.tokens.owner));
    expect(listed.body.data.find((m: { email: string }) => m.email === email).passwordSet).toBe(true);
    const events = await h.prisma.auditEvent.findMany({ where: { workspaceId: w.ws.id, action: 'user.password_set' } });
    expect(events).toHaveLength(1);

    // A member who already has a password gets no mail.
    const other = await makeWorkspace(h.prisma);
    const before = mailsTo(email).length;
    await request(h.app).post('/api/v1/members').set(bearer(other.tokens.owner)).send({ email, role: 'viewer' });
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(email)).toHaveLength(before);
  });

  it('a newer link voids older ones; an invitation expires after 48 hours', async () => {
    const a = await makeWorkspace(h.prisma);
    const b2 = await makeWorkspace(h.prisma);
    const email = `twice-${randomInt(1e9)}@example.test`;
    await request(h.app).post('/api/v1/members').set(bearer(a.tokens.owner)).send({ email, role: 'member' });
    const first = linkInMail((await waitFor(async () => mailsTo(email)[0], 10_000, 'first mail')).raw, '/app/invite/');
    await request(h.app).post('/api/v1/members').set(bearer(b2.tokens.owner)).send({ email, role: 'member' });
    const second = linkInMail(
      (await waitFor(async () => mailsTo(email)[1], 10_000, 'second mail')).raw,
      '/app/invite/',
    );
    expect((await browser().get(first)).status).toBe(404);
    expect((await browser().get(second)).status).toBe(200);

    const late = createApp({ ...h.deps, clock: () => new Date(Date.now() + 48 * HOUR + 60_000) });
    expect((await request(late).get(second)).status).toBe(404);
  });

  it('forgot: the same answer whether the address exists; the reset link (1 h) ends every session', async () => {
    const { w, user } = await member();
    const signedIn = browser();
    await signedIn.signIn(user.email, PASSWORD);
    const page = `/app/${w.ws.slug}/monitors`;

    const unknown = await browser().submit('/app/forgot', { email: `nobody-${randomInt(1e9)}@example.test` });
    const known = await browser().submit('/app/forgot', { email: user.email.toUpperCase() });
    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    const body = (t: string) => t.replace(/name="_csrf" value="[^"]+"/, '');
    expect(body(known.text)).toBe(body(unknown.text));
    expect(known.text).toContain('If an account uses that address');

    const mail = await waitFor(async () => mailsTo(user.email)[0], 10_000, 'the reset mail');
    expect(mail.raw).toMatch(/Subject: Reset your Statusvane password/);
    const link = linkInMail(mail.raw, '/app/forgot/');
    const late = createApp({ ...h.deps, clock: () => new Date(Date.now() + HOUR + 60_000) });
    expect((await request(late).get(link)).status).toBe(404);

    const b = browser();
    const form = await b.get(link);
    expect(form.headers['referrer-policy']).toBe('no-referrer');
    const done = await b.submit(link, { password: 'my reset password', confirm: 'my reset password' });
    expect(done.status).toBe(303);
    expect((await signedIn.get(page)).status).toBe(303);
    expect((await browser().signIn(user.email, 'my reset password')).status).toBe(303);
    expect((await browser().submit('/app/login', { email: user.email, password: PASSWORD })).status).toBe(401);
  });
});

describe('two-factor sign-in (TOTP)', () => {
  /** The key the account page shows while enrolling, and a code of it at `at`. */
  const keyOn = (html: string) => /<code class="secret">([A-Z2-7 ]+)<\/code>/.exec(html)![1]!.replace(/ /g, '');
  const codeAt = (key: string, at: Date) => hotp(base32Decode(key), totpStep(at));

  async function enrolled() {
    const m = await member();
    const b = browser();
    await b.signIn(m.user.email, PASSWORD);
    expect((await b.submit('/app/account', {}, '/app/account/two-factor/start')).status).toBe(303);
    const account = await b.get('/app/account');
    const key = keyOn(account.text);
    const wrong = await b.post('/app/account/two-factor/confirm', { _csrf: csrfOf(account.text), code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('is not the code the app shows now');
    const confirmed = await b.post('/app/account/two-factor/confirm', {
      _csrf: csrfOf(account.text),
      code: codeAt(key, new Date(Date.now() - 30_000)),
    });
    expect(confirmed.status).toBe(200);
    const codes = [...confirmed.text.matchAll(/<li>([a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4})<\/li>/g)].map(
      (x) => x[1]!,
    );
    expect(codes).toHaveLength(10);
    const user = await h.prisma.user.findUniqueOrThrow({ where: { id: m.user.id } });
    expect(user.totpSecretEnc).toMatch(/^v1:/);
    expect(user.totpSecretEnc).not.toContain(key);
    expect(await h.prisma.recoveryCode.count({ where: { userId: m.user.id } })).toBe(10);
    return { ...m, key, codes };
  }

  /** Password first: the answer is the code page, with a pending sign-in cookie. */
  async function passwordStep(email: string) {
    const b = browser();
    const res = await b.signIn(email, PASSWORD);
    expect(res.headers.location).toBe('/app/login/code');
    return { b, pending: setCookie(res, 'sv_session')! };
  }

  it('asks for a code after the password, each code once, and gives a new session id after it', async () => {
    const { w, user, key } = await enrolled();
    const page = `/app/${w.ws.slug}/monitors`;
    const { b, pending } = await passwordStep(user.email);
    // The pending sign-in opens nothing but the code page.
    expect((await b.get(page)).status).toBe(303);
    const form = await b.get('/app/login/code');
    expect(form.status).toBe(200);
    const code = codeAt(key, new Date());
    const done = await b.post('/app/login/code', { _csrf: csrfOf(form.text), code });
    expect(done.status).toBe(303);
    const session = setCookie(done, 'sv_session')!;
    expect(session).not.toBe(pending);
    expect((await b.get(page)).status).toBe(200);
    expect(await h.prisma.consoleSession.count({ where: { tokenHash: hashToken(pending) } })).toBe(0);

    // The same code again, in another sign-in: refused (used once).
    const next = await passwordStep(user.email);
    const form2 = await next.b.get('/app/login/code');
    const replay = await next.b.post('/app/login/code', { _csrf: csrfOf(form2.text), code });
    expect(replay.status).toBe(401);
    expect(replay.text).toContain('That code is not right. 4 tries left.');
    const events = await h.prisma.auditEvent.findMany({
      where: { workspaceId: w.ws.id, action: 'user.two_factor_enabled' },
    });
    expect(events).toHaveLength(1);
  });

  it('ends the pending sign-in at the fifth wrong code', async () => {
    const { user } = await enrolled();
    const { b } = await passwordStep(user.email);
    const form = await b.get('/app/login/code');
    for (let i = 4; i >= 1; i--) {
      const res = await b.post('/app/login/code', { _csrf: csrfOf(form.text), code: '123456' });
      expect(res.text).toContain(`${i} ${i === 1 ? 'try' : 'tries'} left`);
    }
    const fifth = await b.post('/app/login/code', { _csrf: csrfOf(form.text), code: '123456' });
    expect(fifth.status).toBe(303);
    expect(fifth.headers.location).toBe('/app/login?done=code-ended');
    expect(await h.prisma.consoleSession.count({ where: { userId: user.id, awaitingSecondFactor: true } })).toBe(0);
    expect((await b.get('/app/login/code')).headers.location).toBe('/app/login');

    // Starting over from the same address: five more wrong codes lock the pair, the password is refused too.
    const again = browser(b.address);
    expect((await again.signIn(user.email, PASSWORD)).headers.location).toBe('/app/login/code');
    const form2 = await again.get('/app/login/code');
    for (let i = 0; i < 5; i++) await again.post('/app/login/code', { _csrf: csrfOf(form2.text), code: '654321' });
    const locked = await browser(b.address).submit('/app/login', { email: user.email, password: PASSWORD });
    expect([locked.status, flashOf(locked.text)]).toEqual([401, 'The email or password is not right.']);
  });

  it('lets a recovery code stand in for the app once; turning the factor off asks for the password', async () => {
    const { user, codes } = await enrolled();
    const { b } = await passwordStep(user.email);
    const form = await b.get('/app/login/code');
    const used = await b.post('/app/login/code', { _csrf: csrfOf(form.text), code: codes[3]!.toUpperCase() });
    expect(used.status).toBe(303);
    expect(await h.prisma.recoveryCode.count({ where: { userId: user.id } })).toBe(9);
    const account = await b.get('/app/account');
    expect(account.text).toContain('9 recovery codes left');

    const again = await passwordStep(user.email);
    const form2 = await again.b.get('/app/login/code');
    expect((await again.b.post('/app/login/code', { _csrf: csrfOf(form2.text), code: codes[3]! })).status).toBe(401);

    const wrong = await b.post('/app/account/two-factor/remove', {
      _csrf: csrfOf(account.text),
      password: 'not it at all!',
    });
    expect(wrong.status).toBe(400);
    const off = await b.post('/app/account/two-factor/remove', { _csrf: csrfOf(account.text), password: PASSWORD });
    expect(off.status).toBe(303);
    expect(await h.prisma.recoveryCode.count({ where: { userId: user.id } })).toBe(0);
    expect((await browser().signIn(user.email, PASSWORD)).headers.location).toBe('/app');
  });
});

describe('logs', () => {
  it('label console requests by route template and never hold a password, a session id or a link token', async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const logger = createLogger({ level: 'debug', json: true, service: 'api', stream });
    const app = createApp({ ...h.deps, logger });
    const { w, user } = await member();
    const agent = request.agent(app);
    const origin = new URL(h.config.publicBaseUrl).origin;
    const post = async (path: string, fields: Record<string, string>, from = path) => {
      const page = await agent.get(from);
      return agent
        .post(path)
        .set('Origin', origin)
        .type('form')
        .send({ _csrf: csrfOf(page.text), ...fields });
    };
    await post('/app/login', { email: user.email, password: 'a wrong password here' });
    const signed = await post('/app/login', { email: user.email, password: PASSWORD });
    const session = setCookie(signed, 'sv_session')!;
    await agent.get(`/app/w/${w.ws.slug}/monitors`);
    await agent.get(`/app/${w.ws.slug}/monitors?q=x`);
    await post('/app/forgot', { email: user.email }, '/app/forgot');
    const link = linkInMail(
      (await waitFor(async () => mailsTo(user.email)[0], 10_000, 'the reset mail')).raw,
      '/app/forgot/',
    );
    await agent.get(link);
    await new Promise((r) => setTimeout(r, 50));
    const routes = lines
      .map((l) => JSON.parse(l) as { message: string; route?: string })
      .filter((l) => l.message === 'request');
    expect(new Set(routes.map((l) => l.route))).toEqual(
      new Set(['/app/login', '/app/w/{ws}/monitors', '/app/{ws}/monitors', '/app/forgot', '/app/forgot/{token}']),
    );
    const all = lines.join('\n');
    for (const secret of [PASSWORD, 'a wrong password here', session, link.split('/').pop()!, w.ws.slug])
      expect([secret, all.includes(secret)]).toEqual([secret, false]);
  });
});

describe('reserved workspace slugs', () => {
  it('refuses a new workspace named like a console path', async () => {
    for (const slug of ['login', 'logout', 'forgot', 'invite', 'wall', 'assets', 'account'])
      await expect(createWorkspace(h.prisma, { slug, name: 'x' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('routes a reserved first segment to the console’s own pages, never to a workspace', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedInAs(h, w.ws.id, 'owner');
    // The workspace's pages come first; the console's own pages still answer at their addresses.
    expect((await b.get(`/app/${w.ws.slug}/monitors`)).status).toBe(200);
    expect((await b.get(`/app/w/${w.ws.slug}/monitors`)).status).toBe(200);
    const account = await b.get('/app/account');
    expect(account.status).toBe(200);
    expect(account.text).toContain('<h1>Your account</h1>');
    // A reserved segment followed by a workspace page's path, an unknown page of a workspace, a slug nobody has:
    // the console's 404, none of them a workspace's page.
    for (const path of [
      '/app/account/monitors',
      '/app/login/monitors',
      '/app/w',
      `/app/${w.ws.slug}/nowhere`,
      '/app/no-such-workspace/nowhere',
    ]) {
      const res = await b.get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.text).not.toContain('<h1>Monitors</h1>');
    }
  });
});
