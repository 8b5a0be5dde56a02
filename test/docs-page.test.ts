// The API reference page (/docs): what it documents is true.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeHarness, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

describe('GET /docs', () => {
  it('prints no limit that is not one (the safe-integer bounds of an integer schema)', async () => {
    for (const path of ['/docs', '/docs/monitors', '/docs/incidents', '/docs/reference']) {
      const res = await request(h.app).get(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, res.text.includes('9007199254740991')]).toEqual([path, false]);
    }
    // Real limits stay.
    expect((await request(h.app).get('/docs/monitors')).text).toMatch(/max 250/);
  });
});

describe('the API root', () => {
  it('GET /api/v1 and / without a token answer an index linking the docs, the OpenAPI document and the status', async () => {
    const base = h.config.publicBaseUrl;
    const host = new URL(base).host;
    const links = {
      docs: `${base}/docs`,
      openapi: `${base}/api/v1/openapi.json`,
      status: `${base}/readyz`,
      api: `${base}/api/v1`,
    };
    for (const path of ['/api/v1', '/api/v1/']) {
      const res = await request(h.app).get(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.body.data).toMatchObject({ name: expect.any(String), version: expect.any(String), links });
    }
    const json = await request(h.app).get('/').set('Host', host).set('Accept', 'application/json');
    expect(json.status).toBe(200);
    expect(json.body.data.links).toEqual(links);
    const html = await request(h.app).get('/').set('Host', host).set('Accept', 'text/html');
    expect(html.status).toBe(200);
    expect(html.type).toBe('text/html');
    for (const href of [links.docs, links.openapi, links.status]) expect(html.text).toContain(`href="${href}"`);
    expect(html.headers['content-security-policy']).toContain("default-src 'none'");
    // Everything else under /api/v1 still needs its token.
    expect((await request(h.app).get('/api/v1/monitors')).status).toBe(401);
  });
});
