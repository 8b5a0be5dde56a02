// The subscribe page below a status page: the header's Subscribe button, email or webhook, the page's components as
// checkboxes, refusals beside their fields with what was typed and ticked kept; no JavaScript anywhere.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { arrangeStatusPage } from '../apps/api/src/admin/status-page-commands.js';
import { bearer, makeHarness, makeWorkspace, monitorShowing, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

async function setup() {
  const w = await makeWorkspace(h.prisma);
  const api = await monitorShowing(h, w, 'API', 'up');
  const web = await monitorShowing(h, w, 'Web', 'up');
  const res = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('subpage'), name: 'Acme' });
  const page = res.body.data as { id: string; slug: string };
  await arrangeStatusPage(h.prisma, {
    id: page.id,
    json: JSON.stringify([
      { name: 'Core', componentIds: [api.componentId] },
      { name: 'Sites', componentIds: [web.componentId] },
    ]),
  });
  return { w, api, web, page };
}

const form = (slug: string, body: string) =>
  request(h.app)
    .post(`/status/${slug}/subscribe`)
    .set('X-Forwarded-For', `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`)
    .type('form')
    .send(body);

describe('the subscribe page', () => {
  it('the header links it; it offers email and webhook, each with the page`s components in their sections', async () => {
    const { page, api, web } = await setup();
    const home = await request(h.app).get(`/status/${page.slug}`).set('Accept', 'text/html');
    expect(home.text).toContain(
      `<a class="button subscribe-button" href="/status/${page.slug}/subscribe">Subscribe</a>`,
    );
    const res = await request(h.app).get(`/status/${page.slug}/subscribe`).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.text.match(/<script/gi)).toHaveLength(1);
    expect(res.text).toMatch(/<script src="\/app\/assets\/status-page-[A-Z0-9]+\.js" defer><\/script>/);
    expect(res.text).toContain('<meta name="robots" content="noindex"/>');
    expect(
      res.text.match(new RegExp(`<form method="post" action="/status/${page.slug}/subscribe">`, 'g')),
    ).toHaveLength(2);
    expect(res.text).toContain('<input id="sub-email" name="email" type="email"');
    expect(res.text).toContain('<input id="sub-webhook" name="webhookUrl" type="url"');
    for (const kind of ['sub-email', 'sub-webhook'])
      for (const c of [api, web])
        expect(res.text).toContain(
          `<input type="checkbox" id="${kind}-c-${c.componentId}" name="componentIds" value="${c.componentId}"/>`,
        );
    expect(res.text.indexOf('>Core<')).toBeLessThan(res.text.indexOf('>Sites<'));
  });

  it('a form with components ticked subscribes to those only', async () => {
    const { page, api } = await setup();
    const addr = `${uniq('reader')}@example.test`;
    const res = await form(page.slug, `email=${encodeURIComponent(addr)}&componentIds=${api.componentId}`);
    expect([res.status, res.type]).toEqual([202, 'text/html']);
    const sub = await h.prisma.statusPageSubscriber.findFirstOrThrow({
      where: { statusPageId: page.id, email: addr },
      include: { components: true },
    });
    expect(sub.components.map((c) => c.componentId)).toEqual([api.componentId]);
  });

  it('refusals come back beside their field with the typed value and ticked boxes kept (400)', async () => {
    const { page, api, web } = await setup();
    const other = await setup();
    // A component of another page: the boxes' error, the address and the ticks kept.
    const addr = `${uniq('reader')}@example.test`;
    const res = await form(
      page.slug,
      `email=${encodeURIComponent(addr)}&componentIds=${web.componentId}&componentIds=${other.api.componentId}`,
    );
    expect(res.status).toBe(400);
    expect(res.text).toContain(`value="${addr}"`);
    expect(res.text).toContain('id="sub-email-components-error" class="field-error"');
    expect(res.text).toContain(
      `<input type="checkbox" id="sub-email-c-${web.componentId}" name="componentIds" value="${web.componentId}" checked/>`,
    );
    expect(res.text).toContain(
      `<input type="checkbox" id="sub-email-c-${api.componentId}" name="componentIds" value="${api.componentId}"/>`,
    );
    // A webhook URL that is not one: beside the webhook field, the email form untouched.
    const hook = await form(page.slug, `webhookUrl=${encodeURIComponent('not a url')}&componentIds=${api.componentId}`);
    expect(hook.status).toBe(400);
    expect(hook.text).toMatch(
      /<input id="sub-webhook" name="webhookUrl" type="url"[^>]* value="not a url" aria-invalid="true" aria-describedby="sub-webhook-error"\/>/,
    );
    expect(hook.text).toContain('<p id="sub-webhook-error" class="field-error">');
    expect(hook.text).toMatch(/<input id="sub-email" name="email" type="email"[^>]*maxLength="320"\/>/i);
    expect(hook.text).toContain(
      `id="sub-webhook-c-${api.componentId}" name="componentIds" value="${api.componentId}" checked`,
    );
  });
});
