/**
 * Names and titles people are shown refuse bidirectional controls and invisible characters (issue 26): every place
 * one is declared answers 400 naming the field, and emoji sequences with zero-width joiners stay accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const send = (method: 'post' | 'patch', path: string, body: object) =>
  request(h.app)[method](`/api/v1${path}`).set(bearer(ws.tokens.owner)).send(body);
const RLO = 'invoice\u202Egnp.exe';
const ZWSP = 'pay\u200Bpal';
const FAMILY = 'Team \u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
const policy = (name: string) => ({
  name,
  steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'a@b.co' }] }],
});
const future = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const windowBody = (title: string) => ({ title, startsAt: future(60), endsAt: future(120) });

describe('names and titles shown to people', () => {
  it('refuse bidirectional controls and invisible characters wherever declared: 400 naming the field', async () => {
    const monitor = (await send('post', '/monitors', makeMonitorInput({ name: 'Clean' }))).body.data;
    const page = (await send('post', '/status-pages', { vanityUrl: uniq('names'), name: 'Clean' })).body.data;
    const window = (await send('post', '/maintenance', windowBody('Clean'))).body.data;
    const cases: Array<[string, 'post' | 'patch', string, object, string]> = [
      ['monitor name', 'post', '/monitors', makeMonitorInput({ name: RLO }), 'name'],
      ['monitor rename', 'patch', `/monitors/${monitor.id}`, { name: ZWSP }, 'name'],
      ['component name', 'patch', `/components/${monitor.componentId}`, { name: RLO }, 'name'],
      ['component description', 'patch', `/components/${monitor.componentId}`, { description: ZWSP }, 'description'],
      ['status page name', 'post', '/status-pages', { vanityUrl: uniq('bidi'), name: RLO }, 'name'],
      ['status page rename', 'patch', `/status-pages/${page.id}`, { name: ZWSP }, 'name'],
      [
        'section name',
        'patch',
        `/status-pages/${page.id}`,
        { sections: [{ name: RLO, componentIds: [monitor.componentId] }] },
        'sections[0].name',
      ],
      ['incident title', 'post', '/incidents', { title: RLO }, 'title'],
      ['maintenance title', 'post', '/maintenance', windowBody(ZWSP), 'title'],
      ['maintenance retitle', 'patch', `/maintenance/${window.id}`, { title: RLO }, 'title'],
      ['escalation policy name', 'post', '/escalation-policies', policy(RLO), 'name'],
      [
        'webhook description',
        'post',
        '/webhooks',
        { url: 'https://93.184.215.14/hook', description: ZWSP },
        'description',
      ],
      ['token name', 'post', '/tokens', { name: RLO, role: 'viewer' }, 'name'],
      [
        'config monitor name',
        'post',
        '/config/plan',
        { version: 1, monitors: [{ ref: 'm', name: RLO, target: 'https://93.184.215.14/' }] },
        'monitors[0].name',
      ],
      [
        'config status page name',
        'post',
        '/config/plan',
        { version: 1, statusPages: [{ ref: 'p', name: ZWSP, slug: uniq('cfg') }] },
        'statusPages[0].name',
      ],
    ];
    for (const [what, method, path, body, field] of cases) {
      const res = await send(method, path, body);
      const issues = (res.body.error?.details?.issues ?? []) as Array<{ path: string; message: string }>;
      expect([what, res.status, issues.map((i) => i.path)]).toEqual([what, 400, [field]]);
      expect(issues[0]!.message).toMatch(/U\+(202E|200B) \((a bidirectional control|an invisible character)\)/);
    }
    // Nothing of that was written.
    expect((await send('post', '/monitors', makeMonitorInput({ name: 'x' }))).status).toBe(201);
    const names = (await request(h.app).get('/api/v1/monitors').set(bearer(ws.tokens.viewer))).body.data.map(
      (m: { name: string }) => m.name,
    );
    expect(names.some((n: string) => /[\u200B\u202E]/.test(n))).toBe(false);
  });

  it('accept emoji sequences joined by zero-width joiners, and other scripts', async () => {
    const m = await send('post', '/monitors', makeMonitorInput({ name: FAMILY }));
    expect([m.status, m.body.data?.name]).toEqual([201, FAMILY]);
    const t = await send('post', '/incidents', { title: 'עברית ו-English \u{1F3F3}\uFE0F\u200D\u{1F308}' });
    expect(t.status).toBe(201);
  });
});
