import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AppError, NotFoundError, RESERVED_SLUGS, ValidationError } from '@statusvane/shared';
import {
  arrangeStatusPage,
  clearStatusPagePassword,
  setStatusPagePassword,
} from '../apps/api/src/admin/status-page-commands.js';
import { verifyPassword } from '../apps/api/src/services/status-pages/password.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { adminCli } from './support/admin-cli.js';

type Tokens = Awaited<ReturnType<typeof makeWorkspace>>['tokens'];

let h: Harness;
let tokens: Tokens;
let other: Tokens;
beforeAll(async () => {
  h = makeHarness();
  tokens = (await makeWorkspace(h.prisma)).tokens;
  other = (await makeWorkspace(h.prisma)).tokens;
});
afterAll(async () => {
  await h.close();
});

const issuePaths = (res: request.Response) =>
  (res.body.error?.details?.issues ?? []).map((i: { path: string }) => i.path).sort();
const post = (body: unknown, token = tokens.owner) =>
  request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(token))
    .send(body as object);
const layout = (id: string, token = tokens.viewer) =>
  request(h.app).get(`/api/v1/status-pages/${id}/layout`).set(bearer(token));
const opts = () => ({ publicBaseUrl: h.config.publicBaseUrl });

async function createComponent(token: string, name: string) {
  const res = await request(h.app).post('/api/v1/monitors').set(bearer(token)).send(makeMonitorInput({ name }));
  expect(res.status).toBe(201);
  return { id: res.body.data.componentId as string, name };
}

async function caught(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}
const paths = (e: AppError) => ((e.details?.issues as Array<{ path: string }>) ?? []).map((i) => i.path).sort();

describe('POST /status-pages', () => {
  it('creates a page (201): slug from vanityUrl, url under PUBLIC_BASE_URL, public by default', async () => {
    const label = uniq('Acme');
    const res = await post({ vanityUrl: `https://www.${label}.io/`, name: 'Acme status' });
    expect(res.status).toBe(201);
    const slug = `${label.toLowerCase()}-io`;
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      name: 'Acme status',
      slug,
      url: `${h.config.publicBaseUrl}/status/${slug}`,
      isPublic: true,
      passwordProtected: false,
      customDomain: null,
      // No branding unless given (test/public-page-branding.test.ts).
      logoUrl: null,
      faviconUrl: null,
      brandColor: null,
      websiteUrl: null,
      ref: null,
      createdAt: expect.any(String),
    });
    expect(Math.abs(Date.parse(res.body.data.createdAt) - Date.now())).toBeLessThan(10_000);
    const row = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(row.passwordHash).toBeNull();
  });

  it('keeps isPublic: false', async () => {
    const res = await post({ vanityUrl: uniq('private'), name: 'Internal', isPublic: false });
    expect(res.status).toBe(201);
    expect(res.body.data.isPublic).toBe(false);
  });

  it('400 for a missing or bad name, a slug shorter than 3, an overlong vanityUrl, wrong types and unknown keys', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ vanityUrl: uniq('x') }, ['name']],
      [{ vanityUrl: uniq('x'), name: '' }, ['name']],
      [{ vanityUrl: uniq('x'), name: 'n'.repeat(201) }, ['name']],
      [{ name: 'x' }, ['vanityUrl']],
      [{ vanityUrl: 'ab', name: 'x' }, ['vanityUrl']],
      [{ vanityUrl: 'https://www.', name: 'x' }, ['vanityUrl']],
      [{ vanityUrl: '!!!', name: 'x' }, ['vanityUrl']],
      [{ vanityUrl: 'a'.repeat(301), name: 'x' }, ['vanityUrl']],
      [{ vanityUrl: 42, name: 'x' }, ['vanityUrl']],
      [{ vanityUrl: uniq('x'), name: 'x', isPublic: 'yes' }, ['isPublic']],
      [{ vanityUrl: uniq('x'), name: 'x', slug: 'mine', passwordProtected: true }, ['passwordProtected', 'slug']],
    ];
    for (const [body, expected] of cases) {
      const res = await post(body);
      expect([body, res.status, res.body.error?.code, issuePaths(res)]).toEqual([
        body,
        400,
        'invalid_request',
        expected,
      ]);
    }
    expect((await post({ vanityUrl: uniq('x'), name: 'n'.repeat(200) })).status).toBe(201);
  });

  it('slug rules end to end: any scheme is stripped, hyphens are kept, runs of other characters become one hyphen', async () => {
    const label = uniq('x').slice(2); // 8 hex characters
    const cases: Array<[string, string]> = [
      [`ftp://www.Acme--${label}`, `acme--${label}`],
      [`git+ssh://status.${label}.dev`, `status-${label}-dev`],
      [`Acme - ${label}!!`, `acme---${label}`],
    ];
    for (const [vanityUrl, slug] of cases) {
      const res = await post({ vanityUrl, name: 'Slugs' });
      expect([vanityUrl, res.status, res.body.data?.slug]).toEqual([vanityUrl, 201, slug]);
      const page = await request(h.app).get(`/status/${slug}`).set('Accept', 'application/json');
      expect([slug, page.status]).toEqual([slug, 200]);
    }
    // `a--b` and `a-b` are different slugs now.
    expect((await post({ vanityUrl: `acme-${label}`, name: 'Single hyphen' })).status).toBe(201);
    expect((await post({ vanityUrl: `https://acme--${label}`, name: 'Taken' })).body.error.details).toEqual({
      slug: `acme--${label}`,
      reason: 'taken',
    });
  });

  it('409 for every reserved slug, however it is spelled', async () => {
    for (const slug of RESERVED_SLUGS) {
      const res = await post({ vanityUrl: `https://${slug.toUpperCase()}`, name: 'x' });
      expect([slug, res.status, res.body.error?.code, res.body.error?.details]).toEqual([
        slug,
        409,
        'conflict',
        { slug, reason: 'reserved' },
      ]);
    }
    expect((await post({ vanityUrl: 'https://www.api', name: 'x' })).status).toBe(409);
    expect((await post({ vanityUrl: 'http://www.status/', name: 'x' })).status).toBe(409);
  });

  it('409 for a slug already taken, by this workspace or another', async () => {
    const slug = uniq('taken');
    expect((await post({ vanityUrl: slug, name: 'First' })).status).toBe(201);
    for (const token of [tokens.owner, other.owner]) {
      const res = await post({ vanityUrl: `https://www.${slug.toUpperCase()}`, name: 'Second' }, token);
      expect(res.status).toBe(409);
      expect(res.body.error.details).toEqual({ slug, reason: 'taken' });
    }
    expect(await h.prisma.statusPage.count({ where: { slug } })).toBe(1);
  });

  it('concurrent creates of one slug: exactly one 201, the rest 409 (the unique index decides)', async () => {
    const slug = uniq('race');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post({ vanityUrl: slug, name: `Racer ${i}` }, i % 2 ? tokens.owner : other.owner),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(await h.prisma.statusPage.count({ where: { slug } })).toBe(1);
  });

  it('403 for member and viewer; admin may', async () => {
    for (const token of [tokens.member, tokens.viewer]) {
      const slug = uniq('forbidden');
      const res = await post({ vanityUrl: slug, name: 'x' }, token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(await h.prisma.statusPage.count({ where: { slug } })).toBe(0);
    }
    expect((await post({ vanityUrl: uniq('admin-made'), name: 'x' }, tokens.admin)).status).toBe(201);
  });

  it('safe retries: the same key replays the first answer once; a different body with that key is 400', async () => {
    const key = randomUUID();
    const body = { vanityUrl: uniq('retry'), name: 'Retry' };
    const first = await post(body).set('Idempotency-Key', key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await post(body).set('Idempotency-Key', key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await h.prisma.statusPage.count({ where: { slug: first.body.data.slug } })).toBe(1);
    const different = await post({ ...body, name: 'Other' }).set('Idempotency-Key', key);
    expect(different.status).toBe(400);
    // Without the key the same body is a second create: the slug is now taken.
    expect((await post(body)).status).toBe(409);
  });

  it('concurrent retries with one key create one page', async () => {
    const key = randomUUID();
    const body = { vanityUrl: uniq('concurrent'), name: 'Concurrent' };
    const results = await Promise.all(Array.from({ length: 6 }, () => post(body).set('Idempotency-Key', key)));
    for (const r of results) expect([201, 409]).toContain(r.status);
    const created = results.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
    expect(await h.prisma.statusPage.count({ where: { slug: body.vanityUrl } })).toBe(1);
  });
});

describe('GET /status-pages/{id}/layout and status-page arrange', () => {
  it('is empty until arranged, then lists sections and components in render order; [] clears it', async () => {
    const page = (await post({ vanityUrl: uniq('layout'), name: 'Layout' })).body.data;
    const empty = await layout(page.id);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: { statusPageId: page.id, sections: [] } });

    const api = await createComponent(tokens.owner, 'Public API');
    const web = await createComponent(tokens.owner, 'Website');
    const db = await createComponent(tokens.owner, 'Database');
    const arranged = await arrangeStatusPage(h.prisma, {
      id: page.id,
      json: JSON.stringify([
        { name: 'Core', componentIds: [web.id, api.id] },
        { name: 'Data', componentIds: [db.id] },
        { name: 'Empty for now', componentIds: [] },
      ]),
    });
    const read = await layout(page.id);
    expect(read.body.data).toEqual(arranged);
    expect(arranged).toEqual({
      statusPageId: page.id,
      sections: [
        { id: expect.any(String), name: 'Core', components: [web, api] },
        { id: expect.any(String), name: 'Data', components: [db] },
        { id: expect.any(String), name: 'Empty for now', components: [] },
      ],
    });

    // Arranging again replaces the whole layout.
    const again = await arrangeStatusPage(h.prisma, {
      id: page.id,
      json: JSON.stringify([{ name: 'All', componentIds: [db.id, api.id, web.id] }]),
    });
    expect(again.sections.map((s) => [s.name, s.components.map((c) => c.name)])).toEqual([
      ['All', ['Database', 'Public API', 'Website']],
    ]);
    expect(await h.prisma.statusPageSection.count({ where: { statusPageId: page.id } })).toBe(1);

    expect(await arrangeStatusPage(h.prisma, { id: page.id, json: '[]' })).toEqual({
      statusPageId: page.id,
      sections: [],
    });
    expect((await layout(page.id)).body.data.sections).toEqual([]);
  });

  it('arrange refuses foreign and repeated components, too many sections, bad names and bad JSON, and changes nothing', async () => {
    const page = (await post({ vanityUrl: uniq('strict'), name: 'Strict' })).body.data;
    const mine = await createComponent(tokens.owner, 'Mine');
    const theirs = await createComponent(other.owner, 'Theirs');
    await arrangeStatusPage(h.prisma, {
      id: page.id,
      json: JSON.stringify([{ name: 'Keep', componentIds: [mine.id] }]),
    });
    const before = (await layout(page.id)).body.data;

    const foreign = await caught(
      arrangeStatusPage(h.prisma, {
        id: page.id,
        json: JSON.stringify([
          { name: 'A', componentIds: [mine.id, theirs.id] },
          { name: 'B', componentIds: [randomUUID(), mine.id] },
        ]),
      }),
    );
    expect(foreign).toBeInstanceOf(ValidationError);
    expect(paths(foreign)).toEqual(['json[0].componentIds[1]', 'json[1].componentIds[0]', 'json[1].componentIds[1]']);

    const tooMany = await caught(
      arrangeStatusPage(h.prisma, {
        id: page.id,
        json: JSON.stringify(Array.from({ length: 51 }, (_, i) => ({ name: `S${i}`, componentIds: [] }))),
      }),
    );
    expect(paths(tooMany)).toEqual(['json']);
    expect(
      await arrangeStatusPage(h.prisma, {
        id: page.id,
        json: JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ name: `S${i}`, componentIds: [] }))),
      }),
    ).toMatchObject({ sections: expect.arrayContaining([expect.objectContaining({ name: 'S49' })]) });
    await arrangeStatusPage(h.prisma, {
      id: page.id,
      json: JSON.stringify([{ name: 'Keep', componentIds: [mine.id] }]),
    });
    const kept = (await layout(page.id)).body.data;

    const badNames = await caught(
      arrangeStatusPage(h.prisma, {
        id: page.id,
        json: JSON.stringify([
          { name: '', componentIds: [] },
          { name: 'n'.repeat(201), componentIds: [] },
          { componentIds: [] },
        ]),
      }),
    );
    expect(paths(badNames)).toEqual(['json[0].name', 'json[1].name', 'json[2].name']);
    expect(
      paths(
        await caught(
          arrangeStatusPage(h.prisma, { id: page.id, json: '[{"name": "A", "componentIds": ["x"], "extra": 1}]' }),
        ),
      ),
    ).toEqual(['json[0].componentIds[0]', 'json[0].extra']);
    expect(paths(await caught(arrangeStatusPage(h.prisma, { id: page.id, json: '{"name": "A"}' })))).toEqual(['json']);
    expect(paths(await caught(arrangeStatusPage(h.prisma, { id: page.id, json: '[{' })))).toEqual(['json']);
    expect(await caught(arrangeStatusPage(h.prisma, { id: randomUUID(), json: '[]' }))).toBeInstanceOf(NotFoundError);
    expect(paths(await caught(arrangeStatusPage(h.prisma, { id: 'nope', json: '[]' })))).toEqual(['id']);

    expect((await layout(page.id)).body.data).toEqual(kept);
    expect(kept.sections.map((s: { name: string }) => s.name)).toEqual(
      before.sections.map((s: { name: string }) => s.name),
    );
  });

  it("arrange takes the workspace's own component ids and the page id in upper case; a case-only repeat is a repeat", async () => {
    const page = (await post({ vanityUrl: uniq('upper'), name: 'Upper' })).body.data;
    const a = await createComponent(tokens.owner, 'Alpha');
    const b = await createComponent(tokens.owner, 'Beta');
    const arranged = await arrangeStatusPage(h.prisma, {
      id: page.id.toUpperCase(),
      json: JSON.stringify([{ name: 'Main', componentIds: [b.id.toUpperCase(), a.id] }]),
    });
    expect(arranged).toEqual({
      statusPageId: page.id,
      sections: [{ id: expect.any(String), name: 'Main', components: [b, a] }],
    });
    expect((await layout(page.id)).body.data).toEqual(arranged);
    const stored = await h.prisma.sectionComponent.findMany({
      where: { section: { statusPageId: page.id } },
      orderBy: { position: 'asc' },
      select: { componentId: true },
    });
    expect(stored.map((c) => c.componentId)).toEqual([b.id, a.id]);

    const repeat = await caught(
      arrangeStatusPage(h.prisma, {
        id: page.id,
        json: JSON.stringify([{ name: 'X', componentIds: [a.id, a.id.toUpperCase()] }]),
      }),
    );
    expect(paths(repeat)).toEqual(['json[0].componentIds[1]']);
    expect((await layout(page.id)).body.data).toEqual(arranged);

    expect(
      (await setStatusPagePassword(h.prisma, { id: page.id.toUpperCase(), password: 'correct horse' }, opts()))
        .passwordProtected,
    ).toBe(true);
    expect((await clearStatusPagePassword(h.prisma, { id: page.id.toUpperCase() }, opts())).passwordProtected).toBe(
      false,
    );
  });

  it("404 for a malformed id, an unknown id and another workspace's page; every role may read", async () => {
    const page = (await post({ vanityUrl: uniq('reader'), name: 'Reader' })).body.data;
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const)
      expect((await layout(page.id, tokens[role])).status).toBe(200);
    for (const id of ['nope', randomUUID()]) {
      const res = await layout(id);
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    }
    expect((await layout(page.id, other.viewer)).status).toBe(404);
  });
});

describe('status-page set-password / clear-password', () => {
  it('sets a salted scrypt hash, reports passwordProtected and never prints the password or hash', async () => {
    const page = (await post({ vanityUrl: uniq('secret'), name: 'Secret' })).body.data;
    const out = await setStatusPagePassword(h.prisma, { id: page.id, password: 'open sesame' }, opts());
    expect(out).toEqual({ ...page, passwordProtected: true, version: 2 });
    expect(JSON.stringify(out)).not.toMatch(/sesame|scrypt/);
    const row = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } });
    expect(row.passwordHash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(await verifyPassword('open sesame', row.passwordHash!)).toBe(true);

    const cleared = await clearStatusPagePassword(h.prisma, { id: page.id }, opts());
    expect(cleared).toEqual({ ...page, passwordProtected: false, version: 3 });
    expect((await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } })).passwordHash).toBeNull();
  });

  it('refuses a password under 8 characters and an unknown page', async () => {
    const page = (await post({ vanityUrl: uniq('short'), name: 'Short' })).body.data;
    expect(paths(await caught(setStatusPagePassword(h.prisma, { id: page.id, password: 'seven77' }, opts())))).toEqual([
      'password',
    ]);
    expect(
      await caught(setStatusPagePassword(h.prisma, { id: randomUUID(), password: 'long enough' }, opts())),
    ).toBeInstanceOf(NotFoundError);
    expect(await caught(clearStatusPagePassword(h.prisma, { id: randomUUID() }, opts()))).toBeInstanceOf(NotFoundError);
    expect((await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } })).passwordHash).toBeNull();
  });
});

describe('the admin CLI', () => {
  const cli = (args: string[]) => adminCli(args, { PUBLIC_BASE_URL: 'https://status.example.test' });

  it('status-page arrange / set-password / clear-password print one JSON object; bad arguments exit non-zero', async () => {
    const page = (await post({ vanityUrl: uniq('cli'), name: 'CLI' })).body.data;
    const c = await createComponent(tokens.owner, 'Via CLI');
    const arranged = await cli([
      'status-page',
      'arrange',
      '--id',
      page.id,
      '--json',
      JSON.stringify([{ name: 'Main', componentIds: [c.id] }]),
    ]);
    expect([arranged.code, arranged.stderr]).toEqual([0, '']);
    expect(JSON.parse(arranged.stdout)).toEqual({
      statusPageId: page.id,
      sections: [{ id: expect.any(String), name: 'Main', components: [c] }],
    });

    const set = await cli(['status-page', 'set-password', '--id', page.id, '--password', 'cli password']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      ...page,
      url: `https://status.example.test/status/${page.slug}`,
      passwordProtected: true,
      version: 3, // arranged, then protected
    });
    expect(set.stdout).not.toMatch(/cli password|scrypt/);

    const cleared = await cli(['status-page', 'clear-password', '--id', page.id]);
    expect(JSON.parse(cleared.stdout).passwordProtected).toBe(false);

    const short = await cli(['status-page', 'set-password', '--id', page.id, '--password', 'short']);
    expect([short.code !== 0, short.stdout, /password/.test(short.stderr)]).toEqual([true, '', true]);
    const badJson = await cli(['status-page', 'arrange', '--id', page.id, '--json', '[{']);
    expect([badJson.code !== 0, badJson.stdout, /json/.test(badJson.stderr)]).toEqual([true, '', true]);
    const missing = await cli(['status-page', 'arrange', '--id', page.id]);
    expect([missing.code !== 0, missing.stdout]).toEqual([true, '']);
    expect((await layout(page.id)).body.data.sections.map((s: { name: string }) => s.name)).toEqual(['Main']);
  }, 120_000);
});
