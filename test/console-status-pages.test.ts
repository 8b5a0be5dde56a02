// The console's maintenance and status pages: windows (list with a state filter, schedule with 400s beside the fields
// and the typed values kept, edit with a stale version 409 showing the current values, start, complete, delete),
// status pages (create, settings, access, layout of sections and components, delete) and components (public name and
// description). Every write goes through the API's verbs and is audited as the user; a viewer sees no write control
// and a forged write is 403.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, createMonitorNamed, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { csrfOf, signedInAs } from './support/console.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

const signedIn = (w: Workspace, role: 'owner' | 'admin' | 'member' | 'viewer') => signedInAs(h, w.ws.id, role);

/** The audit trail of one record written by a user: [action, actorId], oldest first. */
async function auditOf(w: Workspace, resourceId: string) {
  const events = await h.prisma.auditEvent.findMany({
    where: { workspaceId: w.ws.id, resourceId, actorType: 'user' },
    orderBy: [{ at: 'asc' }, { seq: 'asc' }],
  });
  return events.map((e) => [e.action, e.actorId]);
}

const hourFromNow = (hours: number) => new Date(Math.ceil(Date.now() / 3_600_000 + hours) * 3_600_000);
const field = (d: Date) => d.toISOString().slice(0, 16);

describe('maintenance', () => {
  it('schedules a window (400 beside the end with the values kept), edits it (stale: 409 with the current values), starts, completes and deletes it', async () => {
    const w = await makeWorkspace(h.prisma);
    const web = await createMonitorNamed(h, w, 'Web');
    await createMonitorNamed(h, w, 'Database');
    const { b, user } = await signedIn(w, 'admin');
    const list = `/app/${w.ws.slug}/maintenance`;
    const empty = await b.get(list);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No maintenance yet');
    const form = `${list}/new`;
    const blank = await b.get(form);
    expect(blank.status).toBe(200);
    expect(blank.text).toContain(`name="componentIds.${web.componentId}"`);

    const start = hourFromNow(2);
    const bad = await b.submit(form, {
      title: 'Database upgrade',
      body: 'Read-only for ten minutes.',
      startsAt: field(start),
      endsAt: field(new Date(start.getTime() - 3_600_000)),
      [`componentIds.${web.componentId}`]: 'on',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-endsAt-error" class="field-error">/);
    expect(bad.text).toContain('value="Database upgrade"');
    expect(bad.text).toContain('>Read-only for ten minutes.</textarea>');
    expect(bad.text).toContain(`name="componentIds.${web.componentId}" value="on" checked`);

    const ok = await b.submit(form, {
      title: 'Database upgrade',
      body: 'Read-only for ten minutes.',
      startsAt: field(start),
      endsAt: field(new Date(start.getTime() + 3_600_000)),
      [`componentIds.${web.componentId}`]: 'on',
    });
    expect(ok.status).toBe(303);
    const id = /maintenance\/([0-9a-f-]{36})\?done=created$/.exec(ok.headers.location as string)![1]!;
    const api = await request(h.app).get(`/api/v1/maintenance/${id}`).set(bearer(w.tokens.owner));
    expect([api.body.data.title, api.body.data.status, api.body.data.startsAt]).toEqual([
      'Database upgrade',
      'scheduled',
      start.toISOString(),
    ]);
    expect(api.body.data.components.map((c: { id: string }) => c.id)).toEqual([web.componentId]);
    const shown = await b.get(`${list}?state=scheduled`);
    expect(shown.text).toMatch(
      new RegExp(`<tr id="maintenance-${id}" data-status="scheduled">.*?Database upgrade`, 's'),
    );
    expect((await b.get(`${list}?state=completed`)).text).not.toContain(`maintenance-${id}`);
    expect((await b.get(`${list}?state=bogus`)).status).toBe(400);

    // Someone else edits it through the API: the form's version is now stale.
    const page = `${list}/${id}`;
    const version = String(api.body.data.version);
    await request(h.app)
      .patch(`/api/v1/maintenance/${id}`)
      .set(bearer(w.tokens.owner))
      .send({ title: 'Database upgrade (v16)' });
    const stale = await b.submit(page, {
      version,
      title: 'Mine',
      body: '',
      startsAt: field(start),
      endsAt: field(new Date(start.getTime() + 3_600_000)),
    });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('changed by someone else');
    expect(stale.text).toContain('value="Database upgrade (v16)"');
    const current = String(Number(version) + 1);
    const saved = await b.submit(page, {
      version: current,
      title: 'Database upgrade (v16)',
      body: 'Read-only for five minutes.',
      startsAt: field(start),
      endsAt: field(new Date(start.getTime() + 1_800_000)),
    });
    expect([saved.status, saved.headers.location]).toEqual([303, `${page}?done=saved`]);
    const edited = await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id }, include: { components: true } });
    expect([edited.body, edited.endsAt.getTime(), edited.components.length]).toEqual([
      'Read-only for five minutes.',
      start.getTime() + 1_800_000,
      0,
    ]);

    const v3 = String(edited.version);
    expect((await b.submit(page, { version: v3 }, `${page}/complete`)).status).toBe(409); // not started yet
    expect((await b.submit(page, { version: v3 }, `${page}/start`)).headers.location).toBe(`${page}?done=start`);
    const started = await b.get(page);
    expect(started.text).toContain('In progress');
    expect(started.text).not.toContain(`action="${page}/start"`);
    const v4 = String(edited.version + 1);
    expect((await b.submit(page, { version: v4 }, `${page}/complete`)).status).toBe(303);
    const history = await b.get(page);
    expect(history.text).toContain('is history');
    expect(history.text).not.toContain('aria-labelledby="edit-h"');
    const final = await request(h.app).get(`/api/v1/maintenance/${id}`).set(bearer(w.tokens.owner));
    expect(final.body.data.status).toBe('completed');
    const deleted = await b.submit(page, { version: String(final.body.data.version) }, `${page}/delete`);
    expect([deleted.status, deleted.headers.location]).toEqual([303, `${list}?done=deleted`]);
    expect(await h.prisma.maintenanceWindow.findUnique({ where: { id } })).toBeNull();

    const trail = await auditOf(w, id);
    expect(trail.every(([, actor]) => actor === user.id)).toBe(true);
    expect(trail.map(([action]) => action)).toEqual([
      'maintenance_window.created',
      'maintenance_window.updated',
      'maintenance_window.updated',
      'maintenance_window.updated',
      'maintenance_window.deleted',
    ]);
  });
});

describe('status pages', () => {
  it('creates a page (400 beside the address), saves settings and access, arranges sections, deletes it; all audited', async () => {
    const w = await makeWorkspace(h.prisma);
    const web = await createMonitorNamed(h, w, 'Web');
    const db = await createMonitorNamed(h, w, 'Database');
    const { b, user } = await signedIn(w, 'owner');
    const list = `/app/${w.ws.slug}/status-pages`;
    expect((await b.get(list)).text).toContain('No status pages yet');
    const form = `${list}/new`;
    const bad = await b.submit(form, { name: 'Acme status', vanityUrl: '!!', isPublic: 'on' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-vanityUrl-error" class="field-error">/);
    expect(bad.text).toContain('value="Acme status"');
    const address = uniq('acme');
    const ok = await b.submit(form, { name: 'Acme status', vanityUrl: address, isPublic: 'on' });
    expect(ok.status).toBe(303);
    const id = /status-pages\/([0-9a-f-]{36})\?done=created$/.exec(ok.headers.location as string)![1]!;
    const listed = await b.get(list);
    expect(listed.text).toMatch(new RegExp(`<tr id="page-${id}">.*?Acme status.*?/status/${address}.*?Public`, 's'));
    const taken = await b.submit(form, { name: 'Again', vanityUrl: address });
    expect(taken.status).toBe(409);

    const page = `${list}/${id}`;
    const shown = await b.get(page);
    expect(shown.text).toContain('Not arranged');
    expect(shown.text).toContain(`href="${h.config.publicBaseUrl}/status/${address}"`);
    const stale = await b.submit(page, { version: '7', name: 'Other', slug: address, isPublic: 'on' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('value="Acme status"');
    const settings = await b.submit(page, { version: '1', name: 'Acme', slug: address });
    expect([settings.status, settings.headers.location]).toEqual([303, `${page}?done=saved`]);
    const weak = await b.submit(page, { version: '2', password: 'short', customDomain: '' }, `${page}/access`);
    expect(weak.status).toBe(400);
    expect(weak.text).toMatch(/id="f-password-error" class="field-error">/);
    const access = await b.submit(
      page,
      { version: '2', password: 'a long page password', customDomain: 'status.example.com' },
      `${page}/access`,
    );
    expect(access.status).toBe(303);

    const layout = await b.submit(
      page,
      {
        version: '3',
        'section.0': 'Core',
        'section.1': 'Data',
        'section.2': '',
        [`place.${web.componentId}`]: '1',
        [`order.${web.componentId}`]: '1',
        [`place.${db.componentId}`]: '0',
        [`order.${db.componentId}`]: '',
      },
      `${page}/layout`,
    );
    expect([layout.status, layout.headers.location]).toEqual([303, `${page}?done=layout`]);
    const api = await request(h.app).get(`/api/v1/status-pages/${id}`).set(bearer(w.tokens.owner));
    expect([
      api.body.data.name,
      api.body.data.isPublic,
      api.body.data.passwordProtected,
      api.body.data.customDomain,
    ]).toEqual(['Acme', false, true, 'status.example.com']);
    const arranged = await b.get(page);
    expect(arranged.text).toMatch(/<strong>Core<\/strong>: Database/);
    expect(arranged.text).toMatch(/<strong>Data<\/strong>: Web/);
    // The form lists the components as the page shows them (Database, in the first section, before Web).
    expect(arranged.text.indexOf(`id="place-${db.componentId}"`)).toBeLessThan(
      arranged.text.indexOf(`id="place-${web.componentId}"`),
    );
    expect(arranged.text).toContain(`<option value="1" selected>Data</option>`);
    const listedAfter = await b.get(list);
    expect(listedAfter.text).toMatch(new RegExp(`<tr id="page-${id}">.*?Not served`, 's'));

    const deleted = await b.submit(page, { version: '4' }, `${page}/delete`);
    expect([deleted.status, deleted.headers.location]).toEqual([303, `${list}?done=deleted`]);
    const trail = await auditOf(w, id);
    expect(trail.every(([, actor]) => actor === user.id)).toBe(true);
    expect(trail.map(([action]) => action)).toEqual([
      'status_page.created',
      'status_page.updated',
      'status_page.updated',
      'status_page.updated',
      'status_page.deleted',
    ]);
  });

  it("edits a component's public name and description (400 beside the name, stale 409)", async () => {
    const w = await makeWorkspace(h.prisma);
    const web = await createMonitorNamed(h, w, 'Web');
    const { b, user } = await signedIn(w, 'member');
    const list = `/app/${w.ws.slug}/components`;
    expect((await b.get(list)).text).toMatch(new RegExp(`<tr id="component-${web.componentId}">.*?Web`, 's'));
    const page = `${list}/${web.componentId}`;
    const bad = await b.submit(page, { version: '1', name: '', description: 'Kept' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-name-error" class="field-error">/);
    expect(bad.text).toContain('>Kept</textarea>');
    const stale = await b.submit(page, { version: '9', name: 'Website', description: '' });
    expect(stale.status).toBe(409);
    const ok = await b.submit(page, { version: '1', name: 'Website', description: 'The shop' });
    expect([ok.status, ok.headers.location]).toEqual([303, `${list}?done=component`]);
    const row = await h.prisma.component.findUniqueOrThrow({ where: { id: web.componentId } });
    expect([row.name, row.description]).toEqual(['Website', 'The shop']);
    expect(await auditOf(w, web.componentId)).toContainEqual(['component.updated', user.id]);
  });
});

describe('maintenance and status pages for a viewer', () => {
  it('shows no write control and refuses every forged write with 403, writing nothing', async () => {
    const w = await makeWorkspace(h.prisma);
    const web = await createMonitorNamed(h, w, 'Web');
    const start = hourFromNow(3);
    const m = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(w.tokens.owner))
      .send({ title: 'Upgrade', startsAt: start.toISOString(), endsAt: hourFromNow(4).toISOString() });
    expect(m.status).toBe(201);
    const p = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(w.tokens.owner))
      .send({ name: 'Public', vanityUrl: uniq('pub') });
    expect(p.status).toBe(201);
    const { b } = await signedIn(w, 'viewer');
    const base = `/app/${w.ws.slug}`;
    const pages = [
      `${base}/maintenance`,
      `${base}/maintenance/${m.body.data.id}`,
      `${base}/status-pages`,
      `${base}/status-pages/${p.body.data.id}`,
      `${base}/components`,
      `${base}/components/${web.componentId}`,
    ];
    let csrf = '';
    for (const path of pages) {
      const res = await b.get(path);
      expect([path, res.status]).toEqual([path, 200]);
      // The one form a viewer sees is sign-out (and the filter, a GET).
      expect([path, [...res.text.matchAll(/<form [^>]*method="post"/g)].length]).toEqual([path, 1]);
      expect(res.text).not.toMatch(/Schedule maintenance|New status page/);
      csrf = csrfOf(res.text);
    }
    expect((await b.get(`${base}/maintenance/new`)).status).toBe(303);
    expect((await b.get(`${base}/status-pages/new`)).status).toBe(303);
    const writes = [
      `${base}/maintenance/new`,
      `${base}/maintenance/${m.body.data.id}`,
      `${base}/maintenance/${m.body.data.id}/start`,
      `${base}/maintenance/${m.body.data.id}/delete`,
      `${base}/status-pages/new`,
      `${base}/status-pages/${p.body.data.id}`,
      `${base}/status-pages/${p.body.data.id}/access`,
      `${base}/status-pages/${p.body.data.id}/layout`,
      `${base}/status-pages/${p.body.data.id}/delete`,
      `${base}/components/${web.componentId}`,
    ];
    for (const path of writes) {
      const res = await b.post(path, { _csrf: csrf, version: '1', title: 'Forged', name: 'Forged', vanityUrl: 'x' });
      expect([path, res.status]).toEqual([path, 403]);
    }
    const stored = await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: m.body.data.id } });
    expect([stored.title, stored.version]).toEqual(['Upgrade', 1]);
    expect((await h.prisma.statusPage.findUniqueOrThrow({ where: { id: p.body.data.id } })).name).toBe('Public');
    expect((await h.prisma.component.findUniqueOrThrow({ where: { id: web.componentId } })).name).toBe('Web');
    expect(await h.prisma.auditEvent.count({ where: { workspaceId: w.ws.id, actorType: 'user' } })).toBe(0);
  });
});
