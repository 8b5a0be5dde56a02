import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSsrfGuard } from '@statusvane/shared';
import { createRdapClient } from '../apps/worker/src/probes/rdap.probe.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startWorker, waitFor } from './support/worker-harness.js';

const DAY = 86_400_000;

/**
 * A registry's RDAP server on 127.0.0.1: `/domain/<name>` answers what `set` says for that name (computed at each
 * request, so an expiry can be "30 days from now"), 404 for any other name; `hits` counts the lookups per name.
 */
async function startRdap() {
  const answers = new Map<string, () => { status: number; body?: unknown }>();
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const m = /^\/(?:rdap\/)?domain\/([^/?]+)$/.exec(req.url ?? '');
    if (req.url === '/bootstrap.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(bootstrap(`http://127.0.0.1:${port()}/rdap/`)));
      return;
    }
    const name = m ? decodeURIComponent(m[1]!) : '';
    hits.set(name, (hits.get(name) ?? 0) + 1);
    const answer = answers.get(name)?.() ?? { status: 404, body: { errorCode: 404, title: 'Not Found' } };
    // A registry takes its time: concurrent checks of one domain overlap while the first lookup is out.
    setTimeout(() => {
      res.writeHead(answer.status, { 'content-type': 'application/rdap+json' });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {}));
    }, 150);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = () => (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port()}`,
    set: (name: string, answer: () => { status: number; body?: unknown }) => answers.set(name, answer),
    hits: (name: string) => hits.get(name) ?? 0,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const bootstrap = (url: string) => ({
  version: '1.0',
  publication: '2026-11-01T00:00:00Z',
  services: [
    [['net'], ['https://rdap.example.net/']],
    [['com', 'org'], [url]],
  ],
});

/** An RDAP domain object (RFC 9083) as registries publish it. */
const domainObject = (name: string, expiresAt: Date | null, registrar = 'Example Registrar, Inc.') => ({
  objectClassName: 'domain',
  ldhName: name.toUpperCase(),
  events: [
    { eventAction: 'registration', eventDate: '2001-02-03T04:05:06Z' },
    ...(expiresAt ? [{ eventAction: 'expiration', eventDate: expiresAt.toISOString() }] : []),
  ],
  entities: [
    {
      objectClassName: 'entity',
      handle: '292',
      roles: ['registrar'],
      vcardArray: [
        'vcard',
        [
          ['version', {}, 'text', '4.0'],
          ['fn', {}, 'text', registrar],
        ],
      ],
    },
  ],
});

let h: Harness;
let rdap: Awaited<ReturnType<typeof startRdap>>;
let workers: Array<ReturnType<typeof startWorker>>;
let token: string;
beforeAll(async () => {
  rdap = await startRdap();
  h = makeHarness({ RDAP_BASE_URL: rdap.url });
  // Two workers on one queue: "one lookup per domain" must hold across workers, not only within one.
  workers = [startWorker(h), startWorker(h)];
  token = (await makeWorkspace(h.prisma)).tokens.member;
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await rdap.close();
  await h.close();
});

const post = (body: object) => request(h.app).post('/api/v1/monitors').set(bearer(token)).send(body);
const read = async (id: string) =>
  (await request(h.app).get(`/api/v1/monitors/${id}`).set(bearer(token))).body.data as Record<string, unknown>;
const firstResult = (monitorId: string) =>
  waitFor(
    async () => h.prisma.checkResult.findFirst({ where: { monitorId }, orderBy: { checkedAt: 'asc' } }),
    20_000,
    `the first check of ${monitorId}`,
  );
/** A fresh registrable name per test, so that no answer cached by another test is read. */
const fresh = (label: string) => `${uniq(label)}.com`;

describe('domain monitors: the target and their fields', () => {
  it('takes a registrable domain, refuses a subdomain or a public suffix (400), defaults to a daily lookup and 30 days', async () => {
    const sub = await post({ type: 'domain', name: 'x', target: 'www.example.com' });
    expect(sub.status).toBe(400);
    expect(sub.body.error.details.issues).toEqual([
      { path: 'target', message: 'must be a registrable domain, not a subdomain: monitor example.com instead' },
    ]);
    for (const target of ['co.uk', 'com', 'localhost', '93.184.215.14', 'a.b.example.co.uk', 'not a name'])
      expect([target, (await post({ type: 'domain', name: 'x', target })).status]).toEqual([target, 400]);

    const created = await post({ type: 'domain', name: 'registration', target: 'example.co.uk' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'domain',
      target: 'example.co.uk',
      intervalSeconds: 86_400,
      domainExpiryDays: 30,
      timeoutMs: null,
      regions: ['local'],
    });
    // IDNs are registrable domains too (asked about in their ASCII form).
    expect((await post({ type: 'domain', name: 'idn', target: 'bücher.de' })).status).toBe(201);
  });

  it('an interval of at least an hour, no regions or quorum, and the same rules on PATCH', async () => {
    const target = fresh('fields');
    expect((await post({ type: 'domain', name: 'x', target, intervalSeconds: 3599 })).status).toBe(400);
    expect((await post({ type: 'domain', name: 'x', target, regions: ['local'] })).status).toBe(400);
    expect((await post({ type: 'domain', name: 'x', target, quorum: 1 })).status).toBe(400);
    expect((await post({ type: 'domain', name: 'x', target, domainExpiryDays: 0 })).status).toBe(400);
    const created = await post({ type: 'domain', name: 'x', target, intervalSeconds: 3600, domainExpiryDays: 60 });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const patch = (body: object) => request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(token)).send(body);
    const paths = async (body: object) => {
      const res = await patch(body);
      expect(res.status).toBe(400);
      return res.body.error.details.issues.map((i: { path: string }) => i.path);
    };
    expect(await paths({ intervalSeconds: 600 })).toEqual(['intervalSeconds']);
    expect(await paths({ target: 'mail.example.com' })).toEqual(['target']);
    expect(await paths({ regions: ['local'] })).toEqual(['regions']);
    expect(await paths({ certificateExpiryDays: 7 })).toEqual(['certificateExpiryDays']);
    expect((await patch({ domainExpiryDays: 14, intervalSeconds: 7200 })).body.data).toMatchObject({
      domainExpiryDays: 14,
      intervalSeconds: 7200,
    });
    // Another type does not take domainExpiryDays.
    const tcp = await post({ type: 'tcp', name: 'x', target: '93.184.215.14:443', domainExpiryDays: 5 });
    expect(tcp.status).toBe(400);
  });
});

describe('domain monitors as code', () => {
  it('a config document creates one, a second apply is noop (the daily default is no change), GET /config exports it', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const target = fresh('ascode');
    const doc = {
      version: 1,
      monitors: [
        { ref: 'reg', name: 'Registration', type: 'domain', target },
        { ref: 'backup', name: 'Backup', type: 'heartbeat', minRunSeconds: 30, maxRunSeconds: 3600 },
      ],
    };
    const send = (path: string, body: object) =>
      request(h.app).post(`/api/v1/config/${path}`).set(bearer(tokens.admin)).send(body);
    const applied = await send('apply', doc);
    expect(applied.status).toBe(200);
    expect(applied.body.data.summary).toMatchObject({ create: 2 });
    expect((await send('apply', doc)).body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 2 });
    const exported = (await request(h.app).get('/api/v1/config').set(bearer(tokens.viewer))).body.data;
    expect(exported.monitors).toEqual(
      expect.arrayContaining([
        { ref: 'reg', name: 'Registration', type: 'domain', target },
        expect.objectContaining({ ref: 'backup', minRunSeconds: 30, maxRunSeconds: 3600 }),
      ]),
    );
    const changed = await send('plan', {
      ...doc,
      monitors: [{ ...doc.monitors[0], domainExpiryDays: 10 }, doc.monitors[1]],
    });
    expect(changed.body.data.changes[0]).toMatchObject({
      action: 'update',
      fields: { domainExpiryDays: { from: 30, to: 10 } },
    });
    const refused = await send('plan', { ...doc, monitors: [{ ...doc.monitors[0], target: `www.${target}` }] });
    expect(refused.status).toBe(400);
  });
});

describe('domain monitors: checks over RDAP', () => {
  it('domain_expiring fires at the threshold: 30 days and an hour left passes, 29 days and 23 hours fails', async () => {
    const [justOutside, justInside] = [fresh('outside'), fresh('inside')];
    rdap.set(justOutside, () => ({
      status: 200,
      body: domainObject(justOutside, new Date(Date.now() + 30 * DAY + 3_600_000)),
    }));
    rdap.set(justInside, () => ({
      status: 200,
      body: domainObject(justInside, new Date(Date.now() + 30 * DAY - 3_600_000)),
    }));
    const up = (await post({ type: 'domain', name: 'outside', target: justOutside })).body.data.id as string;
    const down = (await post({ type: 'domain', name: 'inside', target: justInside, openThreshold: 1 })).body.data
      .id as string;
    expect(await firstResult(up)).toMatchObject({ outcome: 'up', reason: null });
    const failed = await firstResult(down);
    expect(failed.outcome).toBe('down');
    expect(failed.reason).toMatch(/^domain_expiring: expires \S+Z \(29 days\)$/);
    await waitFor(async () => (await read(down)).status === 'down', 10_000, 'the monitor down');

    // The record shows the registration, days counted from the read.
    const record = await read(up);
    expect(record.domain).toEqual({
      expiresAt: expect.any(String),
      daysRemaining: 30,
      registrar: 'Example Registrar, Inc.',
    });
    expect((await read(down)).domain).toMatchObject({ daysRemaining: 29 });
    // A threshold of its own moves the line.
    const wide = (await post({ type: 'domain', name: 'wide', target: justOutside, domainExpiryDays: 31 })).body.data
      .id as string;
    expect((await firstResult(wide)).reason).toMatch(/^domain_expiring: /);
  });

  it('a domain the registry does not know is down with domain_not_found (RDAP 404); a registry error is rdap_error', async () => {
    const missing = fresh('missing');
    const id = (await post({ type: 'domain', name: 'missing', target: missing })).body.data.id as string;
    expect(await firstResult(id)).toMatchObject({ outcome: 'down', reason: 'domain_not_found' });
    expect((await read(id)).domain).toBeNull();

    const broken = fresh('broken');
    rdap.set(broken, () => ({ status: 503, body: 'unavailable' }));
    const b = (await post({ type: 'domain', name: 'broken', target: broken })).body.data.id as string;
    expect(await firstResult(b)).toMatchObject({ outcome: 'down', reason: 'rdap_error: http_503' });
    const garbled = fresh('garbled');
    rdap.set(garbled, () => ({ status: 200, body: '<html>' }));
    const g = (await post({ type: 'domain', name: 'garbled', target: garbled })).body.data.id as string;
    expect(await firstResult(g)).toMatchObject({ outcome: 'down', reason: 'rdap_error: invalid_json' });
  });

  it('a registry that publishes no expiry never pages: up, with expiresAt and daysRemaining null', async () => {
    const quiet = fresh('noexpiry');
    rdap.set(quiet, () => ({ status: 200, body: domainObject(quiet, null, 'Quiet Registry') }));
    const id = (await post({ type: 'domain', name: 'quiet', target: quiet, openThreshold: 1 })).body.data.id as string;
    expect(await firstResult(id)).toMatchObject({ outcome: 'up', reason: null });
    expect((await read(id)).domain).toEqual({ expiresAt: null, daysRemaining: null, registrar: 'Quiet Registry' });
    expect(await h.prisma.incident.count({ where: { monitorId: id } })).toBe(0);
  });

  it('100 monitors of one domain, checked by two workers at once, cause one lookup', async () => {
    const shared = fresh('shared');
    rdap.set(shared, () => ({ status: 200, body: domainObject(shared, new Date(Date.now() + 400 * DAY)) }));
    const { tokens } = await makeWorkspace(h.prisma);
    const ids: string[] = [];
    for (let i = 0; i < 100; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          request(h.app)
            .post('/api/v1/monitors')
            .set(bearer(tokens.member))
            .send({ type: 'domain', name: `copy ${i + j}`, target: shared }),
        ),
      );
      ids.push(...batch.map((r) => r.body.data.id as string));
    }
    await waitFor(
      async () => (await h.prisma.checkResult.count({ where: { monitorId: { in: ids } } })) >= 100,
      60_000,
      '100 first checks',
    );
    const results = await h.prisma.checkResult.findMany({ where: { monitorId: { in: ids } } });
    expect(new Set(results.map((r) => r.outcome))).toEqual(new Set(['up']));
    expect(rdap.hits(shared)).toBe(1);
    // Both workers took part (else the Redis lock was never contended).
    const ran = workers.map((w) => w.completed.filter((c) => ids.includes(c.job.data.monitorId)).length);
    expect(ran.every((n) => n > 0)).toBe(true);
    // A check later still reads the cached answer.
    await h.deps.scheduler.runNow({ id: ids[0]!, type: 'domain' }, Date.now());
    await waitFor(
      async () => (await h.prisma.checkResult.count({ where: { monitorId: ids[0]! } })) === 2,
      10_000,
      'a second check',
    );
    expect(rdap.hits(shared)).toBe(1);
  }, 90_000);
});

describe('the RDAP client', () => {
  it('finds the server in the bootstrap file (the longest match) through the SSRF guard, which refuses it unless allowed', async () => {
    const name = fresh('boot');
    rdap.set(name, () => ({ status: 200, body: domainObject(name, new Date('2031-05-06T07:08:09Z')) }));
    const allowed = createRdapClient({
      bootstrapUrl: `${rdap.url}/bootstrap.json`,
      baseUrl: null,
      guard: createSsrfGuard({ allowedCidrs: '127.0.0.0/8' }),
    });
    expect(await allowed.lookup(name)).toEqual({
      kind: 'found',
      expiresAt: '2031-05-06T07:08:09.000Z',
      registrar: 'Example Registrar, Inc.',
    });
    expect(await allowed.lookup('example.io')).toEqual({
      kind: 'error',
      reason: 'no RDAP server for this TLD in the bootstrap file',
    });
    // Without RDAP_BASE_URL every fetch is guarded: a bootstrap (or server) on an internal address is refused.
    const guarded = createRdapClient({
      bootstrapUrl: `${rdap.url}/bootstrap.json`,
      baseUrl: null,
      guard: createSsrfGuard({ allowedCidrs: '' }),
    });
    expect(await guarded.lookup(name)).toEqual({ kind: 'error', reason: 'ssrf_blocked' });
  });
});
