/**
 * `dependsOn` in a workspace document: the new lists are judged together, as apply writes them, so a cycle the
 * document closes (two of its monitors depending on each other, or a loop through a monitor the document does not
 * name) is a 400 at plan, at each monitor's `monitors[i].dependsOn`, and apply answers the same paths, writing
 * nothing. Against the real API and database.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(() => {
  h = makeHarness();
});
beforeEach(async () => {
  ws = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const call = (verb: 'plan' | 'apply', doc: unknown) =>
  request(h.app)
    .post(`/api/v1/config/${verb}`)
    .set(bearer(ws.tokens.admin))
    .send(doc as object);
const entry = (ref: string, port: number, dependsOn?: string[]) => ({
  ref,
  name: ref,
  type: 'tcp',
  target: `93.184.215.14:${port}`,
  ...(dependsOn ? { dependsOn } : {}),
});
type Issue = { path: string; message: string };

/** Managed monitors a, b and c (c first in the document, so indices differ from creation order). */
async function managed(): Promise<Record<string, string>> {
  const res = await call('apply', { version: 1, monitors: [entry('c', 3), entry('a', 1), entry('b', 2)] });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.data.changes as Array<{ ref: string; id: string }>).map((c) => [c.ref, c.id]));
}
const storedLists = async () =>
  Object.fromEntries(
    (
      await h.prisma.monitor.findMany({
        where: { workspaceId: ws.ws.id },
        select: { ref: true, id: true, dependsOn: true, version: true },
      })
    ).map((m) => [m.ref ?? m.id, { dependsOn: m.dependsOn, version: m.version }]),
  );

describe('config dependsOn cycles', () => {
  it('two monitors of the document depending on each other: 400 at each dependsOn, by plan and apply alike', async () => {
    const id = await managed();
    const was = await storedLists();
    const doc = { version: 1, monitors: [entry('c', 3), entry('a', 1, [id.b!]), entry('b', 2, [id.a!])] };
    for (const verb of ['plan', 'apply'] as const) {
      const res = await call(verb, doc);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Invalid document: monitors[1].dependsOn, monitors[2].dependsOn');
      expect(res.body.error.details.issues as Issue[]).toEqual([
        { path: 'monitors[1].dependsOn', message: `would make a cycle: ${id.a} -> ${id.b} -> ${id.a}` },
        { path: 'monitors[2].dependsOn', message: `would make a cycle: ${id.b} -> ${id.a} -> ${id.b}` },
      ]);
    }
    expect(await storedLists()).toEqual(was);

    // One direction alone is fine, and a chain through the document is no cycle.
    const chain = { version: 1, monitors: [entry('c', 3, [id.a!]), entry('a', 1, [id.b!]), entry('b', 2)] };
    expect((await call('plan', chain)).status).toBe(200);
    expect((await call('apply', chain)).body.data.summary).toMatchObject({ update: 2, noop: 1 });
  });

  it('a cycle through a monitor the document does not name: 400 at the document monitors that close it', async () => {
    const id = await managed();
    // An unmanaged monitor (no ref) that depends on b.
    const x = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(ws.tokens.admin))
      .send(makeMonitorInput({ dependsOn: [id.b] }));
    expect(x.status).toBe(201);
    const xId = x.body.data.id as string;
    const was = await storedLists();

    // b -> x -> b: b is in the document, x is not.
    const twoWay = { version: 1, monitors: [entry('b', 2, [xId])] };
    for (const verb of ['plan', 'apply'] as const) {
      const res = await call(verb, twoWay);
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues as Issue[]).toEqual([
        { path: 'monitors[0].dependsOn', message: `would make a cycle: ${id.b} -> ${xId} -> ${id.b}` },
      ]);
    }

    // a -> x -> b -> a: x's stored list and two new lists of the document close it together.
    const threeWay = { version: 1, monitors: [entry('c', 3), entry('a', 1, [xId]), entry('b', 2, [id.a!])] };
    for (const verb of ['plan', 'apply'] as const) {
      const res = await call(verb, threeWay);
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues as Issue[]).toEqual([
        { path: 'monitors[1].dependsOn', message: `would make a cycle: ${id.a} -> ${xId} -> ${id.b} -> ${id.a}` },
        { path: 'monitors[2].dependsOn', message: `would make a cycle: ${id.b} -> ${id.a} -> ${xId} -> ${id.b}` },
      ]);
    }
    expect(await storedLists()).toEqual(was);
  });

  it('a monitor the document prunes leaves the graph: no cycle through it, and its id is refused', async () => {
    const id = await managed();
    // c depends on a; the document prunes c and makes a depend on b: no loop remains.
    await call('apply', { version: 1, monitors: [entry('c', 3, [id.a!]), entry('a', 1), entry('b', 2)] }).expect(200);
    const doc = { version: 1, prune: true, monitors: [entry('a', 1, [id.b!]), entry('b', 2)] };
    expect((await call('plan', doc)).status).toBe(200);
    expect((await call('apply', doc)).body.data.summary).toEqual({ create: 0, update: 1, delete: 1, noop: 1 });
    const lists = await storedLists();
    expect(lists.a!.dependsOn).toEqual([id.b]);
    expect(lists.c).toBeUndefined();
  });

  it('PATCH /monitors judges a list as before: a cycle through a list the document wrote is refused', async () => {
    const id = await managed();
    await call('apply', { version: 1, monitors: [entry('a', 1, [id.b!])] }).expect(200);
    const res = await request(h.app)
      .patch(`/api/v1/monitors/${id.b}`)
      .set(bearer(ws.tokens.admin))
      .send({ dependsOn: [id.a] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([
      { path: 'dependsOn', message: `would make a cycle: ${id.b} -> ${id.a} -> ${id.b}` },
    ]);
  });
});
