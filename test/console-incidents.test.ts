// The console's incidents: the list (open first, then recent; filters), an incident's page with its timeline
// (opened with each region's evidence, escalation deliveries, acknowledgement with who, updates, resolution), and
// acknowledge, resolve, post an update and declare an incident through the API's own verbs, audited as the user.
// A viewer sees no control and a forged write is 403; a write without the CSRF token or from elsewhere is 403.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, createMonitorNamed, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { csrfOf, signedInAs } from './support/console.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

const signedIn = (w: Workspace, role: 'owner' | 'admin' | 'member' | 'viewer', name?: string) =>
  signedInAs(h, w.ws.id, role, name);

async function manualIncident(w: Workspace, title: string, impact = 'major') {
  const res = await request(h.app).post('/api/v1/incidents').set(bearer(w.tokens.owner)).send({ title, impact });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

/** A monitor incident as the worker opens one: evidence per region, and an escalation step that paged. */
async function monitorIncident(w: Workspace) {
  const policy = await request(h.app)
    .post('/api/v1/escalation-policies')
    .set(bearer(w.tokens.owner))
    .send({
      name: 'On call',
      isDefault: true,
      steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'oncall@example.test' }] }],
    });
  expect(policy.status).toBe(201);
  const monitor = await createMonitorNamed(h, w, 'Checkout API');
  const startedAt = new Date(Date.now() - 20 * 60_000);
  const incident = await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: monitor.id,
      openMonitorId: monitor.id,
      title: 'Checkout API is down',
      reason: 'status_code',
      startedAt,
      evidence: [
        {
          region: 'eu-west',
          failing: true,
          lastResult: {
            checkedAt: startedAt.toISOString(),
            status: 'down',
            reason: 'status_code',
            statusCode: 503,
            totalMs: 120,
            address: '203.0.113.7',
          },
        },
        { region: 'us-east', failing: false, lastResult: null },
      ],
    },
  });
  const step = await h.prisma.escalationStep.findFirstOrThrow({ where: { policyId: policy.body.data.id } });
  const target = await h.prisma.escalationTarget.findFirstOrThrow({ where: { stepId: step.id } });
  await h.prisma.escalationDelivery.create({
    data: {
      incidentId: incident.id,
      stepId: step.id,
      targetId: target.id,
      channel: 'email',
      target: 'oncall@example.test',
      status: 'sent',
      attempts: 1,
      sentAt: new Date(startedAt.getTime() + 5000),
    },
  });
  return { incident, monitor };
}

/** The incidents table rows in page order: [title, status]. */
const rowsOf = (html: string) =>
  [
    ...html.matchAll(/<tr id="incident-[^"]+" data-status="([a-z]+)">.*?<td class="name"[^>]*><a [^>]*>([^<]*)<\/a>/g),
  ].map((m) => [m[2], m[1]]);

describe('the incidents list', () => {
  it('shows open incidents first, then those resolved recently; filters by status; 400 for an unknown parameter', async () => {
    const w = await makeWorkspace(h.prisma);
    const a = await manualIncident(w, 'Old resolved');
    await request(h.app).post(`/api/v1/incidents/${a}/resolve`).set(bearer(w.tokens.owner));
    await manualIncident(w, 'Open one');
    const c = await manualIncident(w, 'Acknowledged one');
    await request(h.app).post(`/api/v1/incidents/${c}/acknowledge`).set(bearer(w.tokens.owner));
    const { b } = await signedIn(w, 'viewer');
    const page = await b.get(`/app/${w.ws.slug}/incidents`);
    expect(page.status).toBe(200);
    expect(rowsOf(page.text)).toEqual([
      ['Acknowledged one', 'acknowledged'],
      ['Open one', 'open'],
      ['Old resolved', 'resolved'],
    ]);
    expect(page.text).toMatch(/<h2>Open<\/h2>.*<h2>Resolved in the last 7 days<\/h2>/s);
    const resolved = await b.get(`/app/${w.ws.slug}/incidents?status=resolved&days=30`);
    expect(rowsOf(resolved.text)).toEqual([['Old resolved', 'resolved']]);
    for (const bad of ['?colour=red', '?status=closed', '?days=8', '?status=open&status=resolved'])
      expect([bad, (await b.get(`/app/${w.ws.slug}/incidents${bad}`)).status]).toEqual([bad, 400]);
    // A viewer: no "declare" link and no write form.
    expect(page.text).not.toContain('/incidents/new');
    expect(page.text.match(/<form method="post"/g)).toHaveLength(1); // sign out
  });
});

describe("an incident's page", () => {
  it('shows the timeline: opened with evidence per region, the escalation that paged, and the ladder', async () => {
    const w = await makeWorkspace(h.prisma);
    const { incident, monitor } = await monitorIncident(w);
    const { b } = await signedIn(w, 'member');
    const page = await b.get(`/app/${w.ws.slug}/incidents/${incident.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Checkout API is down</h1>');
    expect(page.text).toContain(`href="/app/${w.ws.slug}/monitors/${monitor.id}">Checkout API</a>`);
    expect(page.text).toContain('Opened: status code');
    expect(page.text).toMatch(
      /<td data-label="Region">eu-west<\/td><td data-label="State">Failing<\/td><td data-label="Last result">down · status code · HTTP 503 · 120 ms · 203.0.113.7<\/td>/,
    );
    expect(page.text).toContain(
      '<td data-label="Region">us-east</td><td data-label="State">Passing</td><td data-label="Last result">No result yet</td>',
    );
    expect(page.text).toContain('Escalation step 1 paged');
    expect(page.text).toMatch(/oncall@example.test<\/span>:\s*<strong>sent<\/strong>/);
    expect(page.text).toContain('Policy <strong>On call</strong>');
    // Dates read as the console writes them, never as raw ISO 8601 in the text (attributes may carry it).
    expect(page.text).not.toMatch(/>[^<]*\d{4}-\d{2}-\d{2}T\d{2}:\d{2}[^<]*</);
    expect(page.text).toMatch(/Step 1: after 0 min,\s*any impact/);
    const declared = await manualIncident(w, 'Queue stuck');
    const pending = await b.get(`/app/${w.ws.slug}/incidents/${declared}`);
    expect(pending.text).toMatch(/came due at \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC/);
    expect(pending.text).not.toMatch(/>[^<]*\d{4}-\d{2}-\d{2}T\d{2}:\d{2}[^<]*</);
    // A member may act: acknowledge, resolve and the update form.
    expect(page.text).toContain(`action="/app/${w.ws.slug}/incidents/${incident.id}/acknowledge"`);
    expect(page.text).toContain(`action="/app/${w.ws.slug}/incidents/${incident.id}/resolve"`);
    expect(page.text).toContain(`action="/app/${w.ws.slug}/incidents/${incident.id}/updates"`);
    expect((await b.get(`/app/${w.ws.slug}/incidents/not-an-id`)).status).toBe(404);
    const other = await makeWorkspace(h.prisma);
    const theirs = await manualIncident(other, 'Not yours');
    expect((await b.get(`/app/${w.ws.slug}/incidents/${theirs}`)).status).toBe(404);
  });

  it('acknowledges as the user (acknowledgedBy in the API and on the page), posts updates, resolves; all audited', async () => {
    const w = await makeWorkspace(h.prisma);
    const id = await manualIncident(w, 'Payments slow');
    const { b, user } = await signedIn(w, 'member', 'Ada Operator');
    const path = `/app/${w.ws.slug}/incidents/${id}`;

    const ack = await b.submit(path, {}, `${path}/acknowledge`);
    expect([ack.status, ack.headers.location]).toEqual([303, `${path}?done=acknowledged`]);
    const api = (await request(h.app).get(`/api/v1/incidents/${id}`).set(bearer(w.tokens.viewer))).body.data;
    expect(api).toMatchObject({
      status: 'acknowledged',
      acknowledgedBy: { type: 'user', id: user.id, name: 'Ada Operator' },
    });
    const page = await b.get(`${path}?done=acknowledged`);
    expect(page.text).toContain('Acknowledged: the escalation has stopped.');
    expect(page.text).toContain('<strong>Acknowledged by Ada Operator</strong>');
    expect(page.text).toContain('<span>Acknowledged by Ada Operator</span>');
    expect(page.text).not.toContain(`action="${path}/acknowledge"`);

    // An update with no message: 400, the issue beside the field, the status kept.
    const empty = await b.submit(path, { status: 'identified', message: '   ' }, `${path}/updates`);
    expect(empty.status).toBe(400);
    expect(empty.text).toMatch(/id="f-message-error" class="field-error">[^<]+</);
    expect(empty.text).toMatch(/<option value="identified" selected>/);
    const bad = await b.submit(path, { status: 'fixed', message: 'x' }, `${path}/updates`);
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-status-error" class="field-error">/);
    const posted = await b.submit(
      path,
      { status: 'identified', message: 'A bad deploy; rolling back.' },
      `${path}/updates`,
    );
    expect([posted.status, posted.headers.location]).toEqual([303, `${path}?done=updated`]);
    expect((await b.get(path)).text).toContain('A bad deploy; rolling back.');

    const resolved = await b.submit(path, {}, `${path}/resolve`);
    expect(resolved.status).toBe(303);
    const after = await b.get(path);
    expect(after.text).toMatch(/<strong>Resolved<\/strong>/);
    expect(after.text).not.toContain(`action="${path}/resolve"`);

    const events = await h.prisma.auditEvent.findMany({
      where: { workspaceId: w.ws.id, resourceId: id, actorType: 'user' },
      orderBy: { at: 'asc' },
    });
    expect(events.map((e) => [e.action, e.actorId])).toEqual([
      ['incident.acknowledged', user.id],
      ['incident.update_posted', user.id],
      ['incident.resolved', user.id],
    ]);
  });

  it('declares an incident: 400 beside the title with the typed values kept, then created on the chosen components', async () => {
    const w = await makeWorkspace(h.prisma);
    const a = await createMonitorNamed(h, w, 'Web');
    await createMonitorNamed(h, w, 'Database');
    const { b } = await signedIn(w, 'member');
    const form = `/app/${w.ws.slug}/incidents/new`;
    const page = await b.get(form);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`name="componentIds.${a.componentId}"`);
    const bad = await b.submit(form, {
      title: '',
      impact: 'minor',
      message: 'Looking into it',
      [`componentIds.${a.componentId}`]: 'on',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-title-error" class="field-error">/);
    expect(bad.text).toMatch(/<option value="minor" selected>/);
    expect(bad.text).toContain('>Looking into it</textarea>');
    expect(bad.text).toContain(`name="componentIds.${a.componentId}" value="on" checked`);
    const ok = await b.submit(form, {
      title: 'Login emails delayed',
      impact: 'minor',
      message: 'Looking into it',
      [`componentIds.${a.componentId}`]: 'on',
    });
    expect(ok.status).toBe(303);
    const id = /incidents\/([0-9a-f-]{36})\?done=declared$/.exec(ok.headers.location as string)![1]!;
    const row = await h.prisma.incident.findUniqueOrThrow({
      where: { id },
      include: { components: true, updates: true },
    });
    expect([row.title, row.impact, row.source]).toEqual(['Login emails delayed', 'minor', 'manual']);
    expect(row.components.map((c) => c.componentId)).toEqual([a.componentId]);
    expect(row.updates.map((u) => [u.status, u.message])).toEqual([['investigating', 'Looking into it']]);
  });
});

describe('incident writes are refused', () => {
  it('for a viewer (no control, forged POST 403), without the CSRF token, and from another origin', async () => {
    const w = await makeWorkspace(h.prisma);
    const id = await manualIncident(w, 'Queue stuck');
    const { b } = await signedIn(w, 'viewer');
    const path = `/app/${w.ws.slug}/incidents/${id}`;
    const page = await b.get(path);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('/acknowledge"');
    expect(page.text).not.toContain('Post an update');
    const csrf = csrfOf(page.text);
    for (const action of ['acknowledge', 'resolve', 'updates'])
      expect((await b.post(`${path}/${action}`, { _csrf: csrf, status: 'identified', message: 'x' })).status).toBe(403);
    expect((await b.post(`/app/${w.ws.slug}/incidents/new`, { _csrf: csrf, title: 'Forged' })).status).toBe(403);
    expect((await b.get(`/app/${w.ws.slug}/incidents/new`)).status).toBe(303);

    const member = await signedIn(w, 'member');
    const token = csrfOf((await member.b.get(path)).text);
    expect((await member.b.post(`${path}/acknowledge`, {})).status).toBe(403);
    expect(
      (await member.b.post(`${path}/acknowledge`, { _csrf: token }, { Origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect((await member.b.post(`${path}/acknowledge`, { _csrf: 'x'.repeat(43) })).status).toBe(403);
    const stored = await h.prisma.incident.findUniqueOrThrow({ where: { id } });
    expect([stored.status, stored.acknowledgedById]).toEqual(['open', null]);
  });
});
