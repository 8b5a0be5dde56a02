// The console's form for `api` monitors (issue 30): steps with name, method, url, headers, body, assertions, extracts
// and the `always` flag; adding, moving and removing steps with buttons that draw the form again (no JavaScript);
// each 400 issue beside the exact step field it names; the version as If-Match; workspace secrets named, never shown;
// step headers and bodies write-only (kept when left empty); a viewer without controls. Through the API's own verbs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { signedInAs } from './support/console.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;
const SECRET_VALUE = 'pa55-word-that-never-shows';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The text of a field's error (`<p id="f-steps-1-url-error">`), or undefined. */
const errorOf = (html: string, key: string) =>
  new RegExp(`id="f-${esc(key.replace(/\./g, '-'))}-error" class="field-error">([^<]*)<`).exec(html)?.[1];
const valueOf = (html: string, name: string) => new RegExp(`name="${esc(name)}"[^>]*value="([^"]*)"`).exec(html)?.[1];
const hasField = (html: string, name: string) => html.includes(`name="${name}"`);
const textOf = (html: string, name: string) =>
  new RegExp(`<textarea[^>]*name="${esc(name)}"[^>]*>([^<]*)</textarea>`).exec(html)?.[1];

async function workspace() {
  const w = await makeWorkspace(h.prisma);
  const secret = await request(h.app)
    .post('/api/v1/secrets')
    .set(bearer(w.tokens.admin))
    .send({ name: 'API_TOKEN', value: SECRET_VALUE, allowedHosts: ['93.184.215.14'] });
  expect(secret.status).toBe(201);
  return w;
}

/** A login -> read flow as the form sends it: step 1 posts the secret and extracts a token that step 2 sends. */
function flowFields(): Record<string, string> {
  return {
    type: 'api',
    name: 'Orders API flow',
    intervalSeconds: '300',
    timeoutMs: '20000',
    openThreshold: '2',
    resolveThreshold: '2',
    confirmAfterSeconds: '15',
    environment: 'production',
    'regions.all': 'local',
    'steps.0.name': 'log in',
    'steps.0.method': 'POST',
    'steps.0.url': 'https://93.184.215.14/login',
    'steps.0.headers': 'X-Trace: console',
    'steps.0.body': '{"password":"{{secrets.API_TOKEN}}"}',
    'steps.0.expectedStatusCodes': '200, 201',
    'steps.0.assertions.0.source': 'status',
    'steps.0.assertions.0.property': '',
    'steps.0.assertions.0.operator': 'eq',
    'steps.0.assertions.0.value': '200',
    'steps.0.extract.0.as': 'token',
    'steps.0.extract.0.from': 'json',
    'steps.0.extract.0.path': '$.token',
    'steps.1.name': 'read orders',
    'steps.1.method': 'GET',
    'steps.1.url': 'https://93.184.215.14/orders',
    'steps.1.headers': 'Authorization: Bearer {{token}}',
    'steps.1.body': '',
    'steps.1.expectedStatusCodes': '',
    // A blank row first: rows left empty are not sent, and issues still land beside the row typed in.
    'steps.1.assertions.0.source': '',
    'steps.1.assertions.0.property': '',
    'steps.1.assertions.0.operator': 'eq',
    'steps.1.assertions.0.value': '',
    'steps.1.assertions.1.source': 'json',
    'steps.1.assertions.1.property': '$.items',
    'steps.1.assertions.1.operator': 'exists',
    'steps.1.assertions.1.value': '',
    'steps.1.extract.0.as': '',
    'steps.1.extract.0.from': 'json',
    'steps.1.extract.0.path': '',
    'steps.1.always': 'on',
  };
}

const readMonitor = async (w: Workspace, id: string) =>
  (await request(h.app).get(`/api/v1/monitors/${id}`).set(bearer(w.tokens.viewer))).body.data;

describe('the api monitor form', () => {
  it('adds steps with a button, creates through the API’s verb, audited as the user; secrets named, never shown', async () => {
    const w = await workspace();
    const { b, user } = await signedInAs(h, w.ws.id, 'member');
    const newPath = `/app/${w.ws.slug}/monitors/new?type=api`;
    const form = await b.get(newPath);
    expect(form.status).toBe(200);
    expect(hasField(form.text, 'steps.0.url')).toBe(true);
    expect(hasField(form.text, 'steps.1.url')).toBe(false);
    expect(hasField(form.text, 'target')).toBe(false);
    expect(form.text).toContain('{{secrets.API_TOKEN}}');
    expect(form.text).not.toContain(SECRET_VALUE);

    // "Add step" draws the form again with a second step and everything typed kept; nothing is created.
    const action = `/app/${w.ws.slug}/monitors/new`;
    const fields = flowFields();
    const step0 = Object.fromEntries(Object.entries(fields).filter(([k]) => !k.startsWith('steps.1.')));
    const added = await b.submit(newPath, { ...step0, _op: 'add-step' }, action);
    expect(added.status).toBe(200);
    expect(hasField(added.text, 'steps.1.url')).toBe(true);
    expect(valueOf(added.text, 'steps.0.url')).toBe('https://93.184.215.14/login');
    expect(valueOf(added.text, 'steps.0.extract.0.path')).toBe('$.token');
    expect(await h.prisma.monitor.count({ where: { workspaceId: w.ws.id } })).toBe(0);

    const created = await b.submit(newPath, fields, action);
    expect(created.status).toBe(303);
    const id = /\/monitors\/([0-9a-f-]{36})\?done=created$/.exec(created.headers.location as string)![1]!;
    const m = await readMonitor(w, id);
    expect(m.type).toBe('api');
    expect(m.intervalSeconds).toBe(300);
    expect(m.steps).toEqual([
      {
        name: 'log in',
        method: 'POST',
        url: 'https://93.184.215.14/login',
        headerNames: ['X-Trace'],
        hasBody: true,
        expectedStatusCodes: [200, 201],
        assertions: [{ source: 'status', operator: 'eq', value: 200 }],
        extract: [{ as: 'token', from: 'json', path: '$.token' }],
      },
      {
        name: 'read orders',
        method: 'GET',
        url: 'https://93.184.215.14/orders',
        headerNames: ['Authorization'],
        hasBody: false,
        assertions: [{ source: 'json', property: '$.items', operator: 'exists' }],
        always: true,
      },
    ]);
    const audit = await h.prisma.auditEvent.findFirst({
      where: { workspaceId: w.ws.id, resourceId: id, action: 'monitor.created' },
    });
    expect(audit).toMatchObject({ actorType: 'user', actorId: user.id });
    // The list filters by the kind (it was a 400 page while the form knew no api monitors).
    const listed = await b.get(`/app/${w.ws.slug}/monitors?type=api`);
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('Orders API flow');
    // Its page (with its steps) and edit form never show a step's header value or body.
    expect((await b.get(`/app/${w.ws.slug}/monitors/${id}`)).text).toMatch(/id="steps-title"[\s\S]*read orders/);
    for (const path of [`/app/${w.ws.slug}/monitors/${id}`, `/app/${w.ws.slug}/monitors/${id}/edit`]) {
      const page = await b.get(path);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('secrets.API_TOKEN}}&quot;');
      expect(page.text).not.toContain('Bearer {{token}}');
      expect(page.text).not.toContain(SECRET_VALUE);
    }
  });

  it('edits a step with the version as If-Match, keeps stored headers and bodies left empty, moves and removes steps', async () => {
    const w = await workspace();
    const { b } = await signedInAs(h, w.ws.id, 'member');
    const created = await b.submit(
      `/app/${w.ws.slug}/monitors/new?type=api`,
      flowFields(),
      `/app/${w.ws.slug}/monitors/new`,
    );
    const id = /\/monitors\/([0-9a-f-]{36})/.exec(created.headers.location as string)![1]!;
    const editPath = `/app/${w.ws.slug}/monitors/${id}/edit`;
    const form = await b.get(editPath);
    expect(form.status).toBe(200);
    expect(valueOf(form.text, 'version')).toBe('1');
    expect(valueOf(form.text, 'steps.1.url')).toBe('https://93.184.215.14/orders');
    expect(valueOf(form.text, 'steps.0.assertions.0.value')).toBe('200');
    expect(valueOf(form.text, 'steps.0.storedHeaders')).toBe('X-Trace');
    expect(form.text).toContain('Stored and never shown: X-Trace.');

    // What the form shows, posted back with step 2's url changed: the headers and body left empty are kept.
    const shown = formFields(form.text);
    const saved = await b.submit(editPath, { ...shown, 'steps.1.url': 'https://93.184.215.14/v2/orders' });
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe(`/app/${w.ws.slug}/monitors/${id}?done=saved`);
    const after = await readMonitor(w, id);
    expect(after.version).toBe(2);
    expect(after.steps.map((s: { url: string }) => s.url)).toEqual([
      'https://93.184.215.14/login',
      'https://93.184.215.14/v2/orders',
    ]);
    expect(after.steps[0]).toMatchObject({ headerNames: ['X-Trace'], hasBody: true });
    expect(after.steps[1]).toMatchObject({ headerNames: ['Authorization'], always: true });
    const audit = await h.prisma.auditEvent.findFirst({
      where: { workspaceId: w.ws.id, resourceId: id, action: 'monitor.updated' },
    });
    expect(audit?.actorType).toBe('user');

    // A stale version (the form of version 1) is the 409 page with the current steps, and nothing is saved.
    const stale = await b.post(editPath, {
      ...shown,
      _csrf: shown._csrf!,
      'steps.1.url': 'https://93.184.215.14/v3/orders',
    });
    expect(stale.status).toBe(409);
    expect(valueOf(stale.text, 'steps.1.url')).toBe('https://93.184.215.14/v2/orders');
    expect((await readMonitor(w, id)).version).toBe(2);

    // Move the second step up: the form again, reordered (with its stored secrets' names), nothing saved yet.
    const current = formFields((await b.get(editPath)).text);
    const moved = await b.submit(editPath, { ...current, _op: 'up:1' });
    expect(moved.status).toBe(200);
    expect(valueOf(moved.text, 'steps.0.name')).toBe('read orders');
    expect(valueOf(moved.text, 'steps.1.storedHeaders')).toBe('X-Trace');
    expect((await readMonitor(w, id)).version).toBe(2);
    // Then remove the step that is now second (log in), and save with the first one's header typed anew (it named
    // {{token}}, which no step extracts any more).
    const removed = await b.submit(editPath, { ...formFields(moved.text), _op: 'remove:1' });
    expect(removed.status).toBe(200);
    expect(hasField(removed.text, 'steps.1.name')).toBe(false);
    const fixed = await b.submit(editPath, {
      ...formFields(removed.text),
      'steps.0.headers': 'Authorization: Bearer {{secrets.API_TOKEN}}',
    });
    expect(fixed.status).toBe(303);
    expect((await readMonitor(w, id)).steps).toMatchObject([{ name: 'read orders', headerNames: ['Authorization'] }]);
  });

  it('shows each 400 issue beside the step field it names, the typed values kept; nothing created', async () => {
    const w = await workspace();
    const { b } = await signedInAs(h, w.ws.id, 'member');
    const newPath = `/app/${w.ws.slug}/monitors/new?type=api`;
    const action = `/app/${w.ws.slug}/monitors/new`;
    const res = await b.submit(
      newPath,
      {
        ...flowFields(),
        'steps.1.url': 'ftp://nowhere.example/orders',
        'steps.1.assertions.1.operator': 'gt',
        'steps.1.assertions.1.value': 'many',
      },
      action,
    );
    expect(res.status).toBe(400);
    expect(errorOf(res.text, 'steps.1.url')).toMatch(/http/);
    expect(res.text).toMatch(/name="steps\.1\.url"[^>]*aria-describedby="f-steps-1-url-error[^"]*"/);
    // The second row of step 2 (the first, blank, is not sent): beside its value.
    expect(errorOf(res.text, 'steps.1.assertions.1.value')).toBe('operator gt compares numbers');
    expect(errorOf(res.text, 'steps.0.url')).toBeUndefined();
    expect(valueOf(res.text, 'steps.1.url')).toBe('ftp://nowhere.example/orders');
    expect(valueOf(res.text, 'steps.1.assertions.1.value')).toBe('many');

    // A template naming no earlier extract, and a secret the workspace does not have: beside the field naming them.
    const refs = await b.submit(
      newPath,
      {
        ...flowFields(),
        'steps.0.url': 'https://93.184.215.14/login/{{later}}',
        'steps.1.headers': 'X-Key: {{secrets.MISSING}}',
      },
      action,
    );
    expect(refs.status).toBe(400);
    expect(errorOf(refs.text, 'steps.0.url')).toMatch(/\{\{later\}\} is not extracted by an earlier step/);
    const missing = await b.submit(
      newPath,
      { ...flowFields(), 'steps.1.headers': 'X-Key: {{secrets.MISSING}}' },
      action,
    );
    expect(missing.status).toBe(400);
    expect(errorOf(missing.text, 'steps.1.headers')).toMatch(/no secret MISSING/);
    expect(textOf(missing.text, 'steps.1.headers')).toBe('X-Key: {{secrets.MISSING}}');
    expect(await h.prisma.monitor.count({ where: { workspaceId: w.ws.id } })).toBe(0);
  });

  it('gives a viewer no control: no form (403), no edit link, and a forged POST is 403 with nothing written', async () => {
    const w = await workspace();
    const writer = await signedInAs(h, w.ws.id, 'member');
    const created = await writer.b.submit(
      `/app/${w.ws.slug}/monitors/new?type=api`,
      flowFields(),
      `/app/${w.ws.slug}/monitors/new`,
    );
    const id = /\/monitors\/([0-9a-f-]{36})/.exec(created.headers.location as string)![1]!;
    const { b } = await signedInAs(h, w.ws.id, 'viewer');
    const page = await b.get(`/app/${w.ws.slug}/monitors/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(`/monitors/${id}/edit`);
    expect((await b.get(`/app/${w.ws.slug}/monitors/${id}/edit`)).status).toBe(403);
    expect((await b.get(`/app/${w.ws.slug}/monitors/new?type=api`)).status).toBe(403);
    const forged = await b.submit(
      `/app/${w.ws.slug}/monitors/${id}`,
      { version: '1', 'steps.0.name': 'hijacked', 'steps.0.method': 'GET', 'steps.0.url': 'https://93.184.215.14/' },
      `/app/${w.ws.slug}/monitors/${id}/edit`,
    );
    expect(forged.status).toBe(403);
    expect((await readMonitor(w, id)).steps[0].name).toBe('log in');
  });
});

/** Every field of the monitor form on a page, as a browser would send it (ticked boxes only, no buttons). */
function formFields(html: string): Record<string, string> {
  const form = /<form method="post"[^>]*class="monitor-form"[\s\S]*?<\/form>/.exec(html)![0];
  const out: Record<string, string> = {};
  const unescape = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  for (const m of form.matchAll(/<input([^>]*)>/g)) {
    const attrs = m[1]!;
    const name = /name="([^"]*)"/.exec(attrs)?.[1];
    if (!name) continue;
    const type = /type="([^"]*)"/.exec(attrs)?.[1] ?? 'text';
    if (type === 'checkbox' && !/\schecked/.test(attrs)) continue;
    out[name] = unescape(/value="([^"]*)"/.exec(attrs)?.[1] ?? (type === 'checkbox' ? 'on' : ''));
  }
  for (const m of form.matchAll(/<textarea([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const name = /name="([^"]*)"/.exec(m[1]!)?.[1];
    if (name) out[name] = unescape(m[2]!);
  }
  for (const m of form.matchAll(/<select([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = /name="([^"]*)"/.exec(m[1]!)?.[1];
    if (!name) continue;
    // An empty value is rendered bare (`<option value selected>`).
    const options = [...m[2]!.matchAll(/<option([^>]*)>/g)].map((o) => ({
      value: /value="([^"]*)"/.exec(o[1]!)?.[1] ?? '',
      selected: /\sselected/.test(o[1]!),
    }));
    out[name] = unescape((options.find((o) => o.selected) ?? options[0])?.value ?? '');
  }
  return out;
}
