// Every text answer over 1 KB is compressed when the client accepts it: the API's lists and the OpenAPI document,
// the docs page, the status page's JSON, feeds and summary.json. Small answers and clients that do not ask go plain.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import request from 'supertest';
import { bearer, makeHarness, makeWorkspace, monitorShowing, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

/** The body's bytes, whatever its type. */
const raw = (res: request.Response) => res.body as Buffer;
const binary = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('compression of text answers', () => {
  it('gzips every text answer over 1 KB when accepted, with Vary: Accept-Encoding', async () => {
    const w = await makeWorkspace(h.prisma);
    const monitors = [];
    for (let i = 0; i < 6; i++) monitors.push(await monitorShowing(h, w, `Service number ${i}`, 'up'));
    // Entries for the feeds.
    for (const m of monitors)
      await h.prisma.incident.create({
        data: {
          workspaceId: w.ws.id,
          monitorId: m.id,
          title: `Service ${m.id} was slow for a while this morning`,
          status: 'resolved',
          resolvedAt: new Date(),
        },
      });
    const page = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(w.tokens.owner))
      .send({ vanityUrl: uniq('gz'), name: 'Acme' });
    const slug = page.body.data.slug as string;
    const cases: Array<[string, Record<string, string>]> = [
      ['/api/v1/openapi.json', {}],
      ['/docs', {}],
      ['/api/v1/monitors', bearer(w.tokens.owner)],
      [`/status/${slug}/api/v2/summary.json`, {}],
      [`/status/${slug}/feed.atom`, {}],
      [`/status/${slug}/feed.rss`, {}],
      [`/status/${slug}`, { Accept: 'application/json' }],
      [`/status/${slug}`, { Accept: 'text/html' }],
    ];
    for (const [path, headers] of cases) {
      const plain = await binary(request(h.app).get(path).set(headers).set('Accept-Encoding', 'identity'));
      expect([path, plain.status, plain.headers['content-encoding']]).toEqual([path, 200, undefined]);
      expect([path, raw(plain).length > 1024]).toEqual([path, true]);
      const gz = await binary(request(h.app).get(path).set(headers).set('Accept-Encoding', 'gzip'));
      expect([path, gz.status, gz.headers['content-encoding']]).toEqual([path, 200, 'gzip']);
      expect(gz.headers.vary).toMatch(/Accept-Encoding/);
      // supertest inflates what it receives: the same answer either way.
      expect([path, raw(gz).toString()]).toEqual([path, raw(plain).toString()]);
      // What browsers send over HTTPS (gzip listed first): brotli, here as for every other answer.
      const br = await binary(request(h.app).get(path).set(headers).set('Accept-Encoding', 'gzip, deflate, br'));
      expect([path, br.status, br.headers['content-encoding']]).toEqual([path, 200, 'br']);
      expect(br.headers.vary).toMatch(/Accept-Encoding/);
      expect([path, raw(br).toString()]).toEqual([path, raw(plain).toString()]);
      // The public page's answers are kept and served many times: encoded once at the `kept` levels (Content-Length
      // is what was sent), gzip 9 (fewer bytes than zlib's default 6) and brotli 6 (fewer again).
      if (path === `/status/${slug}`) {
        const gzipped = Number(gz.headers['content-length']);
        expect([path, gzipped]).toEqual([path, gzipSync(raw(plain), { level: 9 }).length]);
        expect(gzipped).toBeLessThan(gzipSync(raw(plain), { level: 6 }).length);
        const brotli = Number(br.headers['content-length']);
        const q6 = { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: raw(plain).length };
        expect([path, brotli]).toEqual([path, brotliCompressSync(raw(plain), { params: q6 }).length]);
        expect(brotli).toBeLessThan(gzipped);
      }
    }
  });

  it('sends small answers as they are', async () => {
    const w = await makeWorkspace(h.prisma);
    const empty = await binary(
      request(h.app).get('/api/v1/monitors').set(bearer(w.tokens.owner)).set('Accept-Encoding', 'gzip'),
    );
    const health = await binary(request(h.app).get('/healthz').set('Accept-Encoding', 'gzip'));
    for (const r of [empty, health]) {
      expect(r.status).toBe(200);
      expect(raw(r).length).toBeLessThan(1024);
      expect(r.headers['content-encoding']).toBeUndefined();
    }
  });
});
