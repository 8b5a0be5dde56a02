/**
 * Monitor secrets across a key rotation: every stored value names its own key, so replacing only one of a monitor's
 * two secrets under a new key leaves the other readable; legacy values (bare base64 with the key id beside them)
 * stay readable; `secrets rotate` moves everything under the current key so an old key can be retired.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { decryptSecret, keyId, openTarget, type Keyring } from '@statusvane/shared';
import { createPolicy } from '../apps/api/src/admin/policy-commands.js';
import { rotateSecrets, SEALED } from '../apps/api/src/admin/secret-commands.js';
import { runCheck } from '../apps/worker/src/checks/run-check.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startTarget, type Target } from './support/targets.js';
import { checkRunnerDeps } from './support/worker-harness.js';
import { adminCli } from './support/admin-cli.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const idA = keyId(keyA);
const idB = keyId(keyB);

/** Before the rotation: key A. During it: key B current, A still accepted. After it: B alone (A retired). */
let before: Harness;
let during: Harness;
let target: Target;
let token: string;
beforeAll(async () => {
  const allow = { ALLOWED_TARGET_CIDRS: '127.0.0.1/32' };
  before = makeHarness({ ...allow, ENCRYPTION_KEY: keyA.toString('base64'), ENCRYPTION_OLD_KEYS: '' });
  during = makeHarness({
    ...allow,
    ENCRYPTION_KEY: keyB.toString('base64'),
    ENCRYPTION_OLD_KEYS: keyA.toString('base64'),
  });
  token = (await makeWorkspace(before.prisma)).tokens.member;
  target = await startTarget();
});
afterAll(async () => {
  await target.close();
  await before.close();
  await during.close();
});

const ringAfter = (): Keyring => ({ current: { id: idB, key: keyB }, old: [] });

let slot = Date.UTC(2030, 0, 1);
/** One real check by the worker's code with `keyring`: what the target received. */
async function check(h: Harness, monitorId: string, keyring: Keyring) {
  const seen = target.requests.length;
  slot += 60_000;
  const outcome = await runCheck(
    { ...checkRunnerDeps(h), keyring },
    { monitorId, region: 'local', slot: new Date(slot) },
  );
  expect(outcome).toMatchObject({ result: { outcome: 'up' } });
  const received = target.requests.slice(seen);
  expect(received).toHaveLength(1);
  return received[0]!;
}

const create = (h: Harness, body: object) =>
  request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(token))
    .send({ name: 'secret', target: target.url('/status/200'), method: 'POST', ...body });
const patch = (h: Harness, id: string, body: object) =>
  request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(token)).send(body);
const row = (h: Harness, id: string) =>
  h.prisma.monitor.findUniqueOrThrow({ where: { id }, select: { headersEnc: true, bodyEnc: true, encKeyId: true } });

/** The format written before values named their key. */
function legacySeal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

describe('secrets across a key rotation', () => {
  it('a PATCH of the headers alone under a new key leaves the body readable under the old one, and checks keep working', async () => {
    const created = await create(before, { headers: { 'X-Probe': 'old-header' }, body: 'old-body' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const sealed = await row(before, id);
    expect(sealed.headersEnc).toMatch(new RegExp(`^v1:${idA}:`));
    expect(sealed.bodyEnc).toMatch(new RegExp(`^v1:${idA}:`));
    expect(sealed.encKeyId).toBeNull();

    // Key B is now current; only the headers are replaced.
    const patched = await patch(during, id, { headers: { 'X-Probe': 'new-header' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ headerNames: ['X-Probe'], hasBody: true });
    const mixed = await row(during, id);
    expect(mixed.headersEnc).toMatch(new RegExp(`^v1:${idB}:`));
    expect(mixed.bodyEnc).toBe(sealed.bodyEnc);
    expect(JSON.parse(decryptSecret(mixed.headersEnc!, mixed.encKeyId, during.config.encryption))).toEqual({
      'X-Probe': 'new-header',
    });
    expect(decryptSecret(mixed.bodyEnc!, mixed.encKeyId, during.config.encryption)).toBe('old-body');

    // The worker (keys B and A) sends both.
    const sent = await check(during, id, during.config.encryption);
    expect(sent.headers['x-probe']).toBe('new-header');
    expect(sent.body).toBe('old-body');

    // The body alone next: each value keeps its own key.
    expect((await patch(during, id, { body: 'new-body' })).status).toBe(200);
    const both = await check(during, id, during.config.encryption);
    expect([both.headers['x-probe'], both.body]).toEqual(['new-header', 'new-body']);
    const after = await row(during, id);
    expect(after.bodyEnc).toMatch(new RegExp(`^v1:${idB}:`));
  });

  it('reads legacy rows (bare ciphertext, key id beside it), also after one of their secrets was replaced', async () => {
    const id = (await create(before, { headers: { 'X-Probe': 'placeholder' }, body: 'placeholder' })).body.data
      .id as string;
    // A row as the earlier code wrote it: both values under key A, named only by encKeyId.
    await before.prisma.monitor.update({
      where: { id },
      data: {
        headersEnc: legacySeal(JSON.stringify({ 'X-Probe': 'legacy-header' }), keyA),
        bodyEnc: legacySeal('legacy-body', keyA),
        encKeyId: idA,
      },
    });
    const legacy = await check(during, id, during.config.encryption);
    expect([legacy.headers['x-probe'], legacy.body]).toEqual(['legacy-header', 'legacy-body']);

    // Only the body replaced under key B: the legacy headers still open with encKeyId, which stays A.
    expect((await patch(during, id, { body: 'fresh-body' })).status).toBe(200);
    const mixed = await row(during, id);
    expect(mixed.encKeyId).toBe(idA);
    expect(mixed.headersEnc!.startsWith('v1:')).toBe(false);
    expect(mixed.bodyEnc).toMatch(new RegExp(`^v1:${idB}:`));
    const sent = await check(during, id, during.config.encryption);
    expect([sent.headers['x-probe'], sent.body]).toEqual(['legacy-header', 'fresh-body']);

    // Both replaced at once: nothing needs encKeyId any more.
    expect((await patch(during, id, { headers: { 'X-Probe': 'h2' }, body: 'b2' })).status).toBe(200);
    expect((await row(during, id)).encKeyId).toBeNull();
  });

  it('`secrets rotate` re-encrypts every value under the current key; afterwards the old key can be retired', async () => {
    const mk = async (h: Harness, body: object) => (await create(h, body)).body.data.id as string;
    const underA = await mk(before, { headers: { 'X-Probe': 'a-header' }, body: 'a-body' });
    const headersOnly = await mk(before, { headers: { 'X-Probe': 'only-header' } });
    const mixed = await mk(before, { headers: { 'X-Probe': 'm-header' }, body: 'm-body' });
    expect((await patch(during, mixed, { headers: { 'X-Probe': 'm-header-b' } })).status).toBe(200);
    const legacy = await mk(before, { body: 'placeholder' });
    await before.prisma.monitor.update({
      where: { id: legacy },
      data: { bodyEnc: legacySeal('legacy-body', keyA), encKeyId: idA },
    });
    const underB = await mk(during, { headers: { 'X-Probe': 'b-header' }, body: 'b-body' });
    const mine = [underA, headersOnly, mixed, legacy, underB];

    // Without key A a check of a monitor sealed under it fails (config_error): that is what retiring A too early would do.
    const early = await runCheck(
      { ...checkRunnerDeps(during), keyring: ringAfter() },
      { monitorId: underA, region: 'local', slot: new Date((slot += 60_000)) },
    );
    expect(early).toMatchObject({
      result: {
        outcome: 'down',
        reason: expect.stringMatching(new RegExp(`^config_error: encryption key ${idA} is not configured`)),
      },
    });

    const summary = await rotateSecrets(during.prisma, {}, { keyring: during.config.encryption, batchSize: 2 });
    expect(summary.currentKeyId).toBe(idB);
    // Other suites' monitors share this database (under their own key): only this suite's rows are asserted.
    expect(summary.reencrypted).toBeGreaterThanOrEqual(4);
    expect(summary.monitors).toBe(
      summary.reencrypted +
        summary.upToDate +
        new Set(summary.unreadable.map((u) => u.monitorId)).size +
        summary.retryLater.length,
    );
    expect(summary.unreadable.filter((u) => mine.includes(u.monitorId))).toEqual([]);
    expect(summary.keysInUse[idA]).toBeUndefined();
    expect(summary.keysInUse[idB]).toBeGreaterThanOrEqual(8);

    for (const id of mine) {
      const r = await row(during, id);
      expect(r.encKeyId).toBeNull();
      for (const v of [r.headersEnc, r.bodyEnc]) if (v !== null) expect(v).toMatch(new RegExp(`^v1:${idB}:`));
    }
    // Key A retired: every monitor still checks with the right secrets.
    const expected: Record<string, [string | undefined, string]> = {
      [underA]: ['a-header', 'a-body'],
      [headersOnly]: ['only-header', ''],
      [mixed]: ['m-header-b', 'm-body'],
      [legacy]: [undefined, 'legacy-body'],
      [underB]: ['b-header', 'b-body'],
    };
    for (const id of mine) {
      const sent = await check(during, id, ringAfter());
      expect([sent.headers['x-probe'], sent.body]).toEqual(expected[id]);
    }

    // Running it again changes none of this suite's rows.
    const again = await rotateSecrets(during.prisma, {}, { keyring: during.config.encryption });
    const unchanged = await Promise.all(mine.map((id) => row(during, id)));
    expect(again.keysInUse[idA]).toBeUndefined();
    for (const [i, id] of mine.entries()) expect(await row(during, id)).toEqual(unchanged[i]);
  });

  it('`secrets rotate` also moves escalation targets under the current key, so paging survives retiring the old one', async () => {
    const { ws } = await makeWorkspace(before.prisma);
    const hook = 'https://hooks.example.test/services/T0/B0/rotate-secret';
    const json = JSON.stringify({
      name: 'rotation',
      steps: [
        {
          delayMinutes: 0,
          targets: [
            { channel: 'slack', target: hook },
            { channel: 'email', target: 'oncall@example.test' },
          ],
        },
      ],
    });
    const policy = await createPolicy(
      before.prisma,
      { workspace: ws.id, json },
      { guard: before.deps.guard, encryption: before.config.encryption.current },
    );
    const targets = () =>
      before.prisma.escalationTarget.findMany({
        where: { step: { policyId: policy.id } },
        orderBy: { position: 'asc' },
      });
    for (const t of await targets()) expect(t.targetEnc).toMatch(new RegExp(`^v1:${idA}:`));
    const beforeRotation = await targets();
    // Key A retired too early: the target cannot be opened.
    const [slack] = beforeRotation;
    expect(() => openTarget(slack!, ringAfter())).toThrow(new RegExp(`key ${idA} is not configured`));

    const summary = await rotateSecrets(during.prisma, {}, { keyring: during.config.encryption });
    expect(summary.escalationTargets.reencrypted).toBeGreaterThanOrEqual(2);
    expect(summary.escalationTargets.unreadable.filter((u) => u.keyId === idA)).toEqual([]);
    expect(summary.keysInUse[idA]).toBeUndefined();
    const after = await targets();
    for (const t of after) expect(t.targetEnc).toMatch(new RegExp(`^v1:${idB}:`));
    expect(after.map((t) => openTarget(t, ringAfter()))).toEqual([hook, 'oncall@example.test']);
    // Only the ciphertext changed: the display form and the rest of each row are as they were.
    expect(after.map(({ targetEnc, encKeyId, ...rest }) => rest)).toEqual(
      beforeRotation.map(({ targetEnc, encKeyId, ...rest }) => rest),
    );
    expect(after.map((t) => t.display)).toEqual(['https://hooks.example.test/…', 'oncall@example.test']);

    const again = await rotateSecrets(during.prisma, {}, { keyring: during.config.encryption });
    expect(await targets()).toEqual(after);
    expect(again.escalationTargets.upToDate).toBeGreaterThanOrEqual(2);
  });

  it('`secrets rotate` also moves event webhooks and status page subscribers under the current key', async () => {
    const { tokens } = await makeWorkspace(before.prisma);
    const owner = (path: string, body: object) =>
      request(before.app).post(`/api/v1${path}`).set(bearer(tokens.owner)).send(body);
    const hookUrl = 'https://93.184.215.14/hook?token=rotate-me';
    const hook = (await owner('/webhooks', { url: hookUrl })).body.data as { id: string; secret: string };
    const page = (await owner('/status-pages', { vanityUrl: uniq('rotate'), name: 'Rotate' })).body.data as {
      id: string;
      slug: string;
    };
    const subscribe = (body: object) => request(before.app).post(`/status/${page.slug}/subscribe`).send(body);
    expect((await subscribe({ email: `${uniq('rotate')}@example.test` })).status).toBe(202);
    expect((await subscribe({ webhookUrl: target.url('/subscriber') })).status).toBe(202);

    const webhookRow = () => before.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    const subscriberRows = () =>
      before.prisma.statusPageSubscriber.findMany({ where: { statusPageId: page.id }, orderBy: { kind: 'asc' } });
    const sealedValues = (rows: object[]) =>
      rows.flatMap((r) => Object.entries(r).filter(([k, v]) => k.endsWith('Enc') && v !== null)) as Array<
        [string, string]
      >;
    const beforeRotation = { webhook: await webhookRow(), subscribers: await subscriberRows() };
    // Both subscribers: the email one has a confirm and an unsubscribe token, the webhook one a URL, a secret and an
    // unsubscribe token; each value sealed under key A, as the webhook's URL and secret.
    const sealedBefore = sealedValues([beforeRotation.webhook, ...beforeRotation.subscribers]);
    expect(sealedBefore.map(([k]) => k).sort()).toEqual(
      [
        'confirmTokenEnc',
        'secretEnc',
        'secretEnc',
        'unsubscribeTokenEnc',
        'unsubscribeTokenEnc',
        'urlEnc',
        'webhookUrlEnc',
      ].sort(),
    );
    for (const [, v] of sealedBefore) expect(v).toMatch(new RegExp(`^v1:${idA}:`));
    const plain = (rows: object[]) =>
      sealedValues(rows).map(([k, v]) => [k, decryptSecret(v, null, during.config.encryption)]);
    const plaintexts = plain([beforeRotation.webhook, ...beforeRotation.subscribers]);

    const summary = await rotateSecrets(during.prisma, {}, { keyring: during.config.encryption, batchSize: 2 });
    expect(summary.webhooks.reencrypted).toBeGreaterThanOrEqual(1);
    expect(summary.subscribers.reencrypted).toBeGreaterThanOrEqual(2);
    for (const part of [summary.webhooks, summary.subscribers]) {
      expect(part.total).toBe(
        part.reencrypted + part.upToDate + new Set(part.unreadable.map((u) => u.id)).size + part.retryLater.length,
      );
      expect(part.unreadable.filter((u) => u.keyId === idA)).toEqual([]);
    }
    expect(summary.keysInUse[idA]).toBeUndefined();

    const after = { webhook: await webhookRow(), subscribers: await subscriberRows() };
    for (const [, v] of sealedValues([after.webhook, ...after.subscribers]))
      expect(v).toMatch(new RegExp(`^v1:${idB}:`));
    // Key A retired: every value opens with B alone and is what it was.
    expect(
      sealedValues([after.webhook, ...after.subscribers]).map(([k, v]) => [k, decryptSecret(v, null, ringAfter())]),
    ).toEqual(plaintexts);
    expect(plaintexts).toContainEqual(['urlEnc', hookUrl]);
    expect(plaintexts).toContainEqual(['secretEnc', hook.secret]);
    // Only the sealed columns changed: not the version, not updatedAt.
    const unsealed = (r: object) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.endsWith('Enc')));
    expect([after.webhook, ...after.subscribers].map(unsealed)).toEqual(
      [beforeRotation.webhook, ...beforeRotation.subscribers].map(unsealed),
    );
    // Again: nothing to do for these rows.
    const again = await rotateSecrets(during.prisma, {}, { keyring: during.config.encryption });
    expect(again.keysInUse[idA]).toBeUndefined();
    expect({ webhook: await webhookRow(), subscribers: await subscriberRows() }).toEqual(after);
  });

  it('`secrets rotate` knows every sealed column of the schema', async () => {
    // Every column the schema stores sealed (`...Enc`), per table: a new one must be added to SEALED.
    const schema = await readFile(join(import.meta.dirname, '../prisma/schema.prisma'), 'utf8');
    const inSchema: Record<string, string[]> = {};
    for (const [, body] of schema.matchAll(/^model \w+ \{\n([\s\S]*?)^\}/gm)) {
      const table = /@@map\("([^"]+)"\)/.exec(body!)?.[1];
      const sealed = [...body!.matchAll(/^\s+(\w+Enc)\s/gm)].map((m) => m[1]!);
      if (sealed.length) inSchema[table!] = sealed.sort();
    }
    const covered = Object.fromEntries(Object.values(SEALED).map((t) => [t.table, [...t.columns].sort()]));
    expect(covered).toEqual(inSchema);
    expect(Object.keys(inSchema).sort()).toEqual([
      'contact_methods',
      'escalation_targets',
      'monitors',
      'status_page_subscribers',
      'users',
      'webhooks',
      'workspace_secrets',
    ]);
  });

  it('reports values no configured key opens, leaves them untouched, and runs from the admin CLI', async () => {
    const orphanKey = randomBytes(32);
    const id = (await create(before, { body: 'placeholder' })).body.data.id as string;
    const orphan = legacySeal('lost', orphanKey);
    await before.prisma.monitor.update({ where: { id }, data: { bodyEnc: orphan, encKeyId: keyId(orphanKey) } });
    const movable = (await create(before, { headers: { 'X-Probe': 'cli' } })).body.data.id as string;

    const { stdout } = await adminCli(['secrets', 'rotate'], {
      ENCRYPTION_KEY: keyB.toString('base64'),
      ENCRYPTION_OLD_KEYS: keyA.toString('base64'),
    });
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      currentKeyId: idB,
      unreadable: expect.arrayContaining([
        { monitorId: id, field: 'body', keyId: keyId(orphanKey), reason: expect.stringMatching(/not configured/) },
      ]),
    });
    expect(summary.keysInUse[keyId(orphanKey)]).toBeGreaterThanOrEqual(1);
    expect((await row(during, id)).bodyEnc).toBe(orphan);
    expect((await row(during, movable)).headersEnc).toMatch(new RegExp(`^v1:${idB}:`));
  });
});
