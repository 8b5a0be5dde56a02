// The console's kept monitors page (ADR 0023): a reload within five seconds is the render kept for the session and
// address, until the workspace's event log has something after the page's cursor, the member, role or workspace
// changed, or the session ended; then the page is read again. And the one statement a console request reads its
// session with: the membership asked about, the count of workspaces, where the event log ends, and what came after.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createApp } from '../apps/api/src/app.js';
import { CONSOLE_PAGE_MAX_AGE_MS } from '../apps/api/src/console/page-cache.js';
import { readSession } from '../apps/api/src/services/users/sessions.js';
import { bearer, createMonitorNamed, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { consoleBrowser, setCookie, setUserPassword, TEST_PASSWORD } from './support/console.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

/** An app whose request clock the test moves, a workspace with one monitor, and its owner signed in. */
async function setUp(role: 'owner' | 'viewer' = 'owner') {
  const clock = { now: Date.now() };
  const app = createApp({ ...h.deps, clock: () => new Date(clock.now) });
  const w = await makeWorkspace(h.prisma);
  const monitor = await createMonitorNamed(h, w, 'Checkout API');
  const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role }]);
  await setUserPassword(h.prisma, user.email, TEST_PASSWORD);
  const b = consoleBrowser({ ...h, app });
  const signIn = await b.signIn(user.email, TEST_PASSWORD);
  const list = `/app/${w.ws.slug}/monitors`;
  const page = async (path = list) => {
    const res = await b.get(path);
    expect(res.status).toBe(200);
    return res.text;
  };
  return { clock, app, w, monitor, user, b, list, page, token: setCookie(signIn, 'sv_session') };
}

/** Each row's name and status, in page order. */
const rowsOf = (html: string) =>
  [
    ...html.matchAll(
      /<tr id="monitor-[^"]+" data-monitor="[^"]+" data-status="([a-z]+)">.*?<td class="name"[^>]*><span class="name-cell"><a [^>]*>([^<]*)<\/a>/g,
    ),
  ].map((m) => [m[2], m[1]]);

/** A change no event records (as an operator's SQL would make): the name, straight in the table. */
const renameInSql = (id: string, name: string) => h.prisma.monitor.update({ where: { id }, data: { name } });

describe('the kept monitors page', () => {
  it('answers a reload within five seconds with the kept render, then reads the page again', async () => {
    const { clock, monitor, page } = await setUp();
    const first = await page();
    expect(rowsOf(first)).toEqual([['Checkout API', 'pending']]);
    await renameInSql(monitor.id, 'Renamed quietly');
    clock.now += CONSOLE_PAGE_MAX_AGE_MS - 1;
    // The same bytes: the kept render, not the table read again.
    expect(await page()).toBe(first);
    clock.now += 1;
    expect(rowsOf(await page())).toEqual([['Renamed quietly', 'pending']]);
  });

  it('reads the page again at once when the workspace’s event log has something after the kept page', async () => {
    const { w, monitor, page, app } = await setUp();
    await page();
    // A status the checks set: its monitor.status_changed is recorded by the table's trigger, as the worker's is.
    await h.prisma.monitor.update({ where: { id: monitor.id }, data: { status: 'down' } });
    expect(rowsOf(await page())).toEqual([['Checkout API', 'down']]);
    // A write through the API (monitor.updated).
    const renamed = await request(app)
      .patch(`/api/v1/monitors/${monitor.id}`)
      .set(bearer(w.tokens.owner))
      .send({ name: 'Checkout (v2)' });
    expect(renamed.status).toBe(200);
    expect(rowsOf(await page())).toEqual([['Checkout (v2)', 'down']]);
    // A monitor created, then one deleted.
    const other = await createMonitorNamed(h, w, 'Search');
    expect(rowsOf(await page()).map(([n]) => n)).toEqual(['Checkout (v2)', 'Search']);
    expect((await request(app).delete(`/api/v1/monitors/${other.id}`).set(bearer(w.tokens.owner))).status).toBe(204);
    expect(rowsOf(await page()).map(([n]) => n)).toEqual(['Checkout (v2)']);
  });

  it('shows a form’s write on the page it goes back to and on a plain reload', async () => {
    const { w, monitor, b, list, page } = await setUp();
    await page();
    const paused = await b.submit(list, { back: list }, `/app/${w.ws.slug}/monitors/${monitor.id}/pause`);
    expect(paused.status).toBe(303);
    expect(rowsOf(await page(paused.headers.location as string))).toEqual([['Checkout API', 'paused']]);
    expect(rowsOf(await page())).toEqual([['Checkout API', 'paused']]);
  });

  it('follows the member’s role, the workspace’s name and the session, whatever the log says', async () => {
    const { w, user, b, list, page } = await setUp();
    expect(await page()).toContain('New monitor');
    await h.prisma.membership.updateMany({
      where: { userId: user.id, workspaceId: w.ws.id },
      data: { role: 'viewer' },
    });
    expect(await page()).not.toContain('New monitor');
    await h.prisma.workspace.update({ where: { id: w.ws.id }, data: { name: 'Acme production' } });
    expect(await page()).toContain('Acme production');
    // Another workspace for the user: the chrome now links to the chooser.
    const other = await makeWorkspace(h.prisma);
    await h.prisma.membership.create({ data: { userId: user.id, workspaceId: other.ws.id, role: 'viewer' } });
    expect(await page()).toContain('<a class="workspace-name" href="/app" title="Switch workspace">');
    // The session ends (signed out elsewhere): the kept page is not served, the browser goes to sign in.
    await h.prisma.consoleSession.deleteMany({ where: { userId: user.id } });
    const gone = await b.get(list);
    expect(gone.status).toBe(303);
    expect(gone.headers.location).toBe(`/app/login?next=${encodeURIComponent(list)}`);
  });

  it('keeps a render per session and per address', async () => {
    const { w, monitor, app, page, list } = await setUp();
    const first = await page();
    await renameInSql(monitor.id, 'Renamed quietly');
    // Another address (a filter) is its own page, read now.
    expect(rowsOf(await page(`${list}?q=renamed`))).toEqual([['Renamed quietly', 'pending']]);
    // Another member's session, on the same app (the same kept pages), gets its own render, read now, with its own
    // form token.
    const other = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'owner' }]);
    await setUserPassword(h.prisma, other.email, TEST_PASSWORD);
    const b2 = consoleBrowser({ ...h, app });
    await b2.signIn(other.email, TEST_PASSWORD);
    const theirs = await b2.get(list);
    expect(rowsOf(theirs.text)).toEqual([['Renamed quietly', 'pending']]);
    expect(theirs.text).not.toBe(first);
    // The first session's kept render is still its own.
    expect(await page()).toBe(first);
  });
});

describe('the console session read', () => {
  it('reads the membership asked about, the user’s workspaces, where the log ends and what came after', async () => {
    const { w, monitor, user, token } = await setUp();
    const now = new Date();
    const plain = await readSession(h.prisma, h.deps.logger, token, now);
    expect(plain).toMatchObject({ workspaceCount: 1, membership: null, user: { id: user.id } });
    const inWs = await readSession(h.prisma, h.deps.logger, token, now, { slug: w.ws.slug.toUpperCase() });
    expect(inWs?.membership).toEqual({
      role: 'owner',
      workspace: { id: w.ws.id, slug: w.ws.slug, name: w.ws.name, plan: 'free' },
      loggedSince: null,
    });
    // Not a member there (or no such workspace): no membership.
    const stranger = await makeWorkspace(h.prisma);
    expect((await readSession(h.prisma, h.deps.logger, token, now, { slug: stranger.ws.slug }))?.membership).toBeNull();

    // Nothing logged in the workspace since the log's end as read: false. An event committed later: true.
    const end = inWs!.logEnd;
    const asked = { slug: w.ws.slug, loggedSince: end };
    expect((await readSession(h.prisma, h.deps.logger, token, now, asked))?.membership?.loggedSince).toBe(false);
    // Another workspace's event does not count.
    await createMonitorNamed(h, stranger, 'Elsewhere');
    expect((await readSession(h.prisma, h.deps.logger, token, now, asked))?.membership?.loggedSince).toBe(false);
    await h.prisma.monitor.update({ where: { id: monitor.id }, data: { status: 'up' } });
    expect((await readSession(h.prisma, h.deps.logger, token, now, asked))?.membership?.loggedSince).toBe(true);
    // Where the log ends moves past it.
    const later = await readSession(h.prisma, h.deps.logger, token, now, { slug: w.ws.slug });
    expect(later!.logEnd.txid > end.txid).toBe(true);
  });
});
