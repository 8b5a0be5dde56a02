// A monitor's console page and its forms, on the real app: uptime, the p50/p95 chart per region from the rollups (SVG
// and table without JavaScript, data for the canvas), the latest results with phase timings, certificate and
// incidents; the new and edit forms through the API's own verbs (each 400 issue beside its field with the typed values
// kept, a stale version a 409 page with the current values), delete with a confirmation; a viewer without controls.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bucketEstimate, latencyBucket, rebuildRollups } from '@statusvane/shared';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeUser, makeWorkspace, monitorShowing, type Harness } from './support/harness.js';
import { consoleBrowser, csrfOf, setUserPassword } from './support/console.js';

const PASSWORD = 'correct horse battery staple';
let h: Harness;
beforeAll(() => {
  h = makeHarness({ CHECK_REGIONS: 'eu-west,us-east' });
});
afterAll(() => h.close());

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

async function signedIn(w: Workspace, role: 'owner' | 'admin' | 'member' | 'viewer') {
  const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role }]);
  await setUserPassword(h.prisma, user.email, PASSWORD);
  const b = consoleBrowser(h);
  await b.signIn(user.email, PASSWORD);
  return { b, user };
}

/** The text of a field's error (`<p id="f-<name>-error">`), or undefined. */
const errorOf = (html: string, name: string) =>
  new RegExp(`id="f-${name.replace('.', '\\.')}-error" class="field-error">([^<]*)<`).exec(html)?.[1];
const valueOf = (html: string, name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1];
const textareaOf = (html: string, name: string) => new RegExp(`name="${name}"[^>]*>([^<]*)</textarea>`).exec(html)?.[1];

describe('a monitor’s page', () => {
  it('shows uptime, the p50/p95 chart per region from the rollups, the latest results, certificate and incidents', async () => {
    const w = await makeWorkspace(h.prisma, { plan: 'solo' });
    const m = await monitorShowing(h, w, 'Checkout API', 'up');
    // Created before the last 24 hours: the accounting counts no data before a monitor's creation.
    await h.prisma.monitor.update({ where: { id: m.id }, data: { createdAt: new Date(Date.now() - 25 * 3_600_000) } });
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
    const at = (i: number) => new Date(hour + i * 60_000);
    await h.prisma.checkResult.createMany({
      data: [
        ...[100, 100, 100, 900].map((ms, i) => ({
          monitorId: m.id,
          region: 'eu-west',
          slot: at(i),
          checkedAt: at(i),
          outcome: 'up' as const,
          responseMs: ms,
          dnsMs: 3,
          connectMs: 7,
          tlsMs: 20,
          waitingMs: 60,
          statusCode: 200,
          address: '93.184.215.14',
        })),
        { monitorId: m.id, region: 'us-east', slot: at(0), checkedAt: at(0), outcome: 'up', responseMs: 300 },
        {
          monitorId: m.id,
          region: 'us-east',
          slot: at(1),
          checkedAt: at(1),
          outcome: 'down',
          reason: 'status_code',
          statusCode: 503,
        },
      ],
    });
    await rebuildRollups(h.prisma, m.id);
    await h.prisma.monitor.update({
      where: { id: m.id },
      data: {
        certificate: {
          subject: 'CN=checkout.example',
          issuer: 'CN=Test CA',
          validFrom: '2026-01-01T00:00:00.000Z',
          validTo: new Date(Date.now() + 20 * 86_400_000).toISOString(),
          daysRemaining: 20,
          fingerprint256: 'AA:BB:CC',
        },
      },
    });
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: m.id,
        title: 'Checkout API is down',
        status: 'resolved',
        impact: 'major',
        source: 'monitor',
        startedAt: at(1),
        resolvedAt: at(2),
        reason: 'status_code',
      },
    });
    const { b } = await signedIn(w, 'viewer');
    const page = await b.get(`/app/${w.ws.slug}/monitors/${m.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Checkout API</h1>');
    // Uptime over 24 h from the accounting function (time, not checks), default policy: the 86,400 seconds all
    // counted (the monitor is older; no spans, no maintenance), 60 of them down (the incident, at(1) to at(2)):
    // 86,340 / 86,400 = 99.9305% (4 decimals, truncated), shown with two: 99.93%, at least 99.9 so "good".
    expect(page.text).toMatch(/<dt>Last 24 hours<\/dt><dd class="uptime good">99\.93%<\/dd>/);
    // The chart: both regions' p50 and p95 in the data the canvas is drawn from, the SVG lines and the table.
    const data = JSON.parse(
      /data-chart="([^"]*)"/
        .exec(page.text)![1]!
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    ) as { t: number[]; series: Array<{ label: string; values: Array<number | null> }> };
    expect(data.t).toHaveLength(24);
    expect(data.series.map((s) => s.label)).toEqual(['eu-west p50', 'eu-west p95', 'us-east p50', 'us-east p95']);
    const last = (label: string) => data.series.find((s) => s.label === label)!.values.filter((v) => v !== null);
    expect(last('eu-west p50')).toEqual([bucketEstimate(latencyBucket(100))]);
    expect(last('eu-west p95')).toEqual([bucketEstimate(latencyBucket(900))]);
    expect(last('us-east p50')).toEqual([bucketEstimate(latencyBucket(300))]);
    expect(page.text).toMatch(/<svg class="chart-svg"[^>]*role="img"/);
    expect(page.text).toContain('class="chart-line chart-c0"');
    expect(page.text).toContain('class="chart-line chart-c1 chart-dashed"');
    expect(page.text).toContain('Show the figures as a table');
    // The latest results, newest first, with reason, address, code and phases.
    expect(page.text).toContain('status_code');
    expect(page.text).toContain('93.184.215.14');
    expect(page.text).toContain('DNS 3 · connect 7 · TLS 20 · wait 60');
    expect(page.text).toMatch(/In (19|20) days/);
    expect(page.text).toContain('CN=checkout.example');
    expect(page.text).toContain('Checkout API is down');
    // A viewer: no edit, pause or delete.
    expect(page.text).not.toContain(`/monitors/${m.id}/edit`);
    expect(page.text).not.toContain(`/monitors/${m.id}/pause`);
    expect(page.text).not.toContain(`/monitors/${m.id}/delete`);
    // Each range is a period of the response-time history; a 90-day chart has 90 daily buckets.
    const quarter = await b.get(`/app/${w.ws.slug}/monitors/${m.id}?range=90d`);
    expect(quarter.text).toMatch(/aria-current="true">90d</);
    const q = /data-chart="([^"]*)"/.exec(quarter.text)![1]!.replace(/&quot;/g, '"');
    expect((JSON.parse(q) as { t: number[] }).t).toHaveLength(90);
    for (const bad of ['?range=1y', '?colour=red'])
      expect([bad, (await b.get(`/app/${w.ws.slug}/monitors/${m.id}${bad}`)).status]).toEqual([bad, 400]);
  });

  it('is 404 for another workspace’s monitor and for an id that is none; writers see the controls', async () => {
    const w = await makeWorkspace(h.prisma);
    const other = await makeWorkspace(h.prisma);
    const theirs = await monitorShowing(h, other, 'Theirs', 'up');
    const mine = await monitorShowing(h, w, 'Mine', 'up');
    const { b } = await signedIn(w, 'member');
    expect((await b.get(`/app/${w.ws.slug}/monitors/${theirs.id}`)).status).toBe(404);
    expect((await b.get(`/app/${w.ws.slug}/monitors/not-an-id`)).status).toBe(404);
    const page = await b.get(`/app/${w.ws.slug}/monitors/${mine.id}`);
    expect(page.text).toContain(`/monitors/${mine.id}/edit`);
    expect(page.text).toContain(`action="/app/${w.ws.slug}/monitors/${mine.id}/pause"`);
    // Deleting is for managers.
    expect(page.text).not.toContain(`/monitors/${mine.id}/delete`);
    expect((await b.get(`/app/${w.ws.slug}/monitors/${mine.id}/delete`)).status).toBe(403);
  });
});

describe('the edit form', () => {
  it('shows every field of the type with the version; saves only what changed, audited as the user', async () => {
    const w = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send(makeMonitorInput({ name: 'Shop', headers: { 'X-Token': 'secret-value' }, metadata: { team: 'web' } }));
    const m = created.body.data as { id: string; version: number };
    const { b, user } = await signedIn(w, 'member');
    const edit = `/app/${w.ws.slug}/monitors/${m.id}/edit`;
    const form = await b.get(edit);
    expect(form.status).toBe(200);
    for (const field of ['name', 'target', 'intervalSeconds', 'timeoutMs', 'keyword', 'degradedAfterMs', 'quorum'])
      expect([field, form.text.includes(`name="${field}"`)]).toEqual([field, true]);
    expect(form.text).toContain('name="jsonAssertion.path"');
    expect(form.text).toContain('At or above the timeout it never fires');
    expect(valueOf(form.text, 'version')).toBe(String(m.version));
    expect(valueOf(form.text, 'name')).toBe('Shop');
    // Write-only: the header's name is shown, never its value.
    expect(form.text).toContain('X-Token');
    expect(form.text).not.toContain('secret-value');
    expect(form.text).toContain('team=web');

    const fields = {
      version: String(m.version),
      name: 'Shop front',
      target: 'https://93.184.215.14/health',
      method: 'GET',
      intervalSeconds: '120',
      timeoutMs: '10000',
      expectedStatusCodes: '200, 204',
      keyword: '',
      keywordAbsent: '',
      'jsonAssertion.path': '',
      'jsonAssertion.operator': 'eq',
      'jsonAssertion.value': '',
      headers: '',
      body: '',
      contentType: 'application/json',
      degradedAfterMs: '',
      latencyThresholdMs: '',
      certificateExpiryDays: '7',
      openThreshold: '2',
      resolveThreshold: '2',
      confirmAfterSeconds: '15',
      escalationPolicyId: '',
      environment: 'production',
      dependsOn: '',
      quorum: valueOf(form.text, 'quorum')!,
      regions: ['eu-west', 'us-east'],
      'regions.all': 'eu-west,us-east',
    };
    const saved = await b.submit(edit, fields);
    expect([saved.status, saved.headers.location]).toEqual([303, `/app/${w.ws.slug}/monitors/${m.id}?done=saved`]);
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } });
    expect(row).toMatchObject({ name: 'Shop front', intervalSeconds: 120, expectedStatusCodes: [200, 204] });
    // Fields left as shown are not sent: the quorum stays the default (a majority), the headers as stored.
    expect(row.quorum).toBeNull();
    expect(row.headersEnc).not.toBeNull();
    const audit = await h.prisma.auditEvent.findMany({ where: { resourceId: m.id, action: 'monitor.updated' } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: 'user', actorId: user.id });
    expect(Object.keys(audit[0]!.changes as object).sort()).toEqual(['expectedStatusCodes', 'intervalSeconds', 'name']);

    // A 400: each issue beside its field, the typed values kept, nothing written.
    const bad = await b.submit(edit, {
      ...fields,
      version: String(row.version),
      name: 'Shop front',
      intervalSeconds: 'soon',
      target: 'ftp://93.184.215.14/',
      expectedStatusCodes: '200, 999',
      'jsonAssertion.path': '$.status',
      'jsonAssertion.operator': 'gt',
      'jsonAssertion.value': '"ok"',
    });
    expect(bad.status).toBe(400);
    // The schema's wording where a person would read it otherwise.
    expect(errorOf(bad.text, 'intervalSeconds')).toBe('A whole number, please.');
    expect(errorOf(bad.text, 'target')).toContain('only http and https');
    expect(errorOf(bad.text, 'expectedStatusCodes')).toMatch(/^\[1\]/);
    expect(errorOf(bad.text, 'jsonAssertion')).toContain('compares numbers');
    expect(bad.text).toMatch(/id="f-target"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-target"/);
    expect(valueOf(bad.text, 'intervalSeconds')).toBe('soon');
    expect(valueOf(bad.text, 'target')).toBe('ftp://93.184.215.14/');
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } })).version).toBe(row.version);

    // A stale version: 409, the current values shown, nothing written.
    await request(h.app).patch(`/api/v1/monitors/${m.id}`).set(bearer(w.tokens.owner)).send({ name: 'Renamed by API' });
    const stale = await b.post(edit, { _csrf: csrfOf(form.text), ...fields, version: String(row.version) });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('changed since you opened the form');
    expect(valueOf(stale.text, 'name')).toBe('Renamed by API');
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } })).name).toBe('Renamed by API');
  });

  it('clears a setting emptied in the form, and removes stored headers when asked', async () => {
    const w = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send(makeMonitorInput({ keyword: 'ok', degradedAfterMs: 800, headers: { 'X-A': '1' } }));
    const id = created.body.data.id as string;
    const { b } = await signedIn(w, 'admin');
    const edit = `/app/${w.ws.slug}/monitors/${id}/edit`;
    const form = await b.get(edit);
    const fields: Record<string, string> = {};
    for (const name of ['version', 'name', 'target', 'intervalSeconds', 'timeoutMs', 'openThreshold', 'quorum'])
      fields[name] = valueOf(form.text, name)!;
    // Only some fields sent: those not sent stay as they are.
    const res = await b.submit(edit, {
      ...fields,
      keyword: '',
      degradedAfterMs: '',
      'headers.clear': 'on',
    });
    expect(res.status).toBe(303);
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ keyword: null, degradedAfterMs: null, headersEnc: null });
  });

  it('a viewer gets no form (403) and a forged POST is 403 with nothing written; no CSRF token is 403', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await monitorShowing(h, w, 'Guarded', 'up');
    const viewer = await signedIn(w, 'viewer');
    expect((await viewer.b.get(`/app/${w.ws.slug}/monitors/${m.id}/edit`)).status).toBe(403);
    const page = await viewer.b.get(`/app/${w.ws.slug}/monitors/${m.id}`);
    const forged = await viewer.b.post(`/app/${w.ws.slug}/monitors/${m.id}/edit`, {
      _csrf: csrfOf(page.text),
      name: 'Hacked',
    });
    expect(forged.status).toBe(403);
    const member = await signedIn(w, 'member');
    const noToken = await member.b.post(`/app/${w.ws.slug}/monitors/${m.id}/edit`, { name: 'Hacked' });
    expect(noToken.status).toBe(403);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } })).name).toBe('Guarded');
  });
});

describe('the new monitor form', () => {
  it('shows the fields of the chosen type, creates through the API’s verb and lands on the monitor', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b, user } = await signedIn(w, 'member');
    const tcp = await b.get(`/app/${w.ws.slug}/monitors/new?type=tcp`);
    expect(tcp.status).toBe(200);
    expect(tcp.text).toContain('name="type" value="tcp"');
    expect(tcp.text).not.toContain('name="keyword"');
    expect(tcp.text).toContain('host:port');
    const beat = await b.get(`/app/${w.ws.slug}/monitors/new?type=heartbeat`);
    expect(beat.text).toContain('name="graceSeconds"');
    expect(beat.text).not.toContain('name="target"');

    const res = await b.submit(
      `/app/${w.ws.slug}/monitors/new?type=tcp`,
      {
        type: 'tcp',
        name: 'Database',
        target: '93.184.215.14:5432',
        intervalSeconds: '300',
        timeoutMs: '5000',
        metadata: 'team=data\ntier=1',
        regions: ['eu-west', 'us-east'],
        'regions.all': 'eu-west,us-east',
      },
      `/app/${w.ws.slug}/monitors/new`,
    );
    expect(res.status).toBe(303);
    const m = await h.prisma.monitor.findFirstOrThrow({ where: { workspaceId: w.ws.id } });
    expect(res.headers.location).toBe(`/app/${w.ws.slug}/monitors/${m.id}?done=created`);
    expect(m).toMatchObject({ type: 'tcp', name: 'Database', intervalSeconds: 300, timeoutMs: 5000 });
    expect(m.metadata).toEqual({ team: 'data', tier: '1' });
    // Every region ticked (as the form starts) is the default, all of them, not a list that would stay as it is.
    expect(m.regions).toEqual([]);
    const audit = await h.prisma.auditEvent.findFirstOrThrow({
      where: { resourceId: m.id, action: 'monitor.created' },
    });
    expect(audit).toMatchObject({ actorType: 'user', actorId: user.id });
    expect((await b.get(res.headers.location!)).text).toContain('Monitor created');
  });

  it('answers 400 with each issue beside its field and the typed values kept; nothing created', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'member');
    const res = await b.submit(`/app/${w.ws.slug}/monitors/new`, {
      type: 'http',
      name: '',
      target: 'https://127.0.0.1/admin',
      intervalSeconds: '5',
      degradedAfterMs: '20000',
      timeoutMs: '10000',
      regions: 'mars',
    });
    expect(res.status).toBe(400);
    expect(errorOf(res.text, 'name')).toBe('Required.');
    expect(errorOf(res.text, 'target')).toBeTruthy();
    expect(errorOf(res.text, 'intervalSeconds')).toContain('60');
    expect(errorOf(res.text, 'regions')).toBeTruthy();
    expect(valueOf(res.text, 'target')).toBe('https://127.0.0.1/admin');
    expect(valueOf(res.text, 'intervalSeconds')).toBe('5');
    // Not an error, but said beside the field: it can never fire.
    expect(res.text).toContain('At or above the timeout (10000 ms): this never fires.');
    expect(await h.prisma.monitor.count({ where: { workspaceId: w.ws.id } })).toBe(0);
    expect(textareaOf(res.text, 'metadata')).toBe('');
  });

  it('is for writers: a viewer gets 403 on the form and on a forged POST', async () => {
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'viewer');
    expect((await b.get(`/app/${w.ws.slug}/monitors/new`)).status).toBe(403);
    const list = await b.get(`/app/${w.ws.slug}/monitors`);
    expect(list.text).not.toContain('/monitors/new');
    const forged = await b.post(`/app/${w.ws.slug}/monitors/new`, {
      _csrf: csrfOf(list.text),
      type: 'http',
      name: 'Sneaky',
      target: 'https://93.184.215.14/',
    });
    expect(forged.status).toBe(403);
    expect(await h.prisma.monitor.count({ where: { workspaceId: w.ws.id } })).toBe(0);
  });
});

describe('deleting a monitor', () => {
  it('asks first, deletes with the version as If-Match, and a stale one is a 409 page', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await monitorShowing(h, w, 'Old API', 'up');
    const { b, user } = await signedIn(w, 'admin');
    const confirm = await b.get(`/app/${w.ws.slug}/monitors/${m.id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Delete Old API?');
    expect(await h.prisma.monitor.count({ where: { id: m.id } })).toBe(1);
    // Changed meanwhile: 409, still there.
    await request(h.app).patch(`/api/v1/monitors/${m.id}`).set(bearer(w.tokens.owner)).send({ name: 'Old API v1' });
    const stale = await b.post(`/app/${w.ws.slug}/monitors/${m.id}/delete`, {
      _csrf: csrfOf(confirm.text),
      version: valueOf(confirm.text, 'version')!,
    });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('Delete Old API v1?');
    expect(await h.prisma.monitor.count({ where: { id: m.id } })).toBe(1);
    const done = await b.post(`/app/${w.ws.slug}/monitors/${m.id}/delete`, {
      _csrf: csrfOf(stale.text),
      version: valueOf(stale.text, 'version')!,
    });
    expect([done.status, done.headers.location]).toEqual([303, `/app/${w.ws.slug}/monitors?done=deleted`]);
    expect(await h.prisma.monitor.count({ where: { id: m.id } })).toBe(0);
    expect(
      await h.prisma.auditEvent.count({ where: { resourceId: m.id, action: 'monitor.deleted', actorId: user.id } }),
    ).toBe(1);
  });
});
