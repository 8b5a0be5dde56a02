// Issue 15 (beyond-the-seed §2): `regions` and `quorum`, fast confirmation (`confirmAfterSeconds`) and `dependsOn`,
// through the API and real workers of two regions, each on its own connections, against a real target on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { confirmationJobId } from '@statusvane/shared';
import { runCheck } from '../apps/worker/src/checks/run-check.js';
import { storeCheckResultAlone } from '../apps/worker/src/checks/store-result.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import {
  agePastGap,
  probeResult,
  regionStates,
  CLEAR_OF_SLOTS,
  startRegionWorkers,
  startSwitchTarget,
  waitFor,
  stopScheduledChecks,
  scheduledRegions,
} from './support/worker-harness.js';

let target: Awaited<ReturnType<typeof startSwitchTarget>>;
let h: Harness;
let regions: ReturnType<typeof startRegionWorkers>;
let workers: ReturnType<typeof startRegionWorkers>['workers'];
beforeAll(async () => {
  target = await startSwitchTarget();
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8', CHECK_REGIONS: 'eu,us,ap' });
  regions = startRegionWorkers(h, ['eu', 'us']);
  workers = regions.workers;
});
afterAll(async () => {
  await regions.close();
  await h.close();
  await target.close();
});

const issuePaths = (res: request.Response) =>
  (res.body.error.details.issues as Array<{ path: string }>).map((i) => i.path).sort();

/** A monitor with no scheduled slot between its create's checks and stopScheduledChecks (CLEAR_OF_SLOTS). */
async function create(token: string, over: Record<string, unknown> = {}) {
  const input = { target: target.url, openThreshold: 2, resolveThreshold: 2, ...CLEAR_OF_SLOTS, ...over };
  return request(h.app).post('/api/v1/monitors').set(bearer(token)).send(makeMonitorInput(input));
}
const patch = (token: string, id: string, body: Record<string, unknown>) =>
  request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(token)).send(body);

const schedulerRegions = (monitorId: string) => scheduledRegions(h, monitorId);

const checkIn = (monitorId: string, inRegions: string[]) => regions.checkIn(monitorId, inRegions);

describe('regions and quorum through the API', () => {
  it('defaults to every region and a majority; a subset and a quorum are kept, and only those regions are scheduled', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const plain = await create(tokens.owner);
    expect(plain.status).toBe(201);
    expect(plain.body.data).toMatchObject({
      regions: ['eu', 'us', 'ap'],
      quorum: 2,
      confirmAfterSeconds: 15,
      dependsOn: [],
    });
    expect(await schedulerRegions(plain.body.data.id)).toEqual(['ap', 'eu', 'us']);

    const chosen = await create(tokens.owner, { regions: ['us', 'eu'], quorum: 1, confirmAfterSeconds: 30 });
    expect(chosen.status).toBe(201);
    // Shown in CHECK_REGIONS order.
    expect(chosen.body.data).toMatchObject({ regions: ['eu', 'us'], quorum: 1, confirmAfterSeconds: 30 });
    const id = chosen.body.data.id as string;
    expect(await schedulerRegions(id)).toEqual(['eu', 'us']);

    // Moving it to one region leaves it out of the others' partitions; a quorum above the region count is refused.
    const moved = await patch(tokens.owner, id, { regions: ['ap'] });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ regions: ['ap'], quorum: 1 });
    expect(await schedulerRegions(id)).toEqual(['ap']);
    const tooMany = await patch(tokens.owner, id, { quorum: 2 });
    expect(tooMany.status).toBe(400);
    expect(issuePaths(tooMany)).toEqual(['quorum']);
    // null goes back to the default majority.
    const back = await patch(tokens.owner, id, { regions: ['eu', 'us', 'ap'], quorum: null });
    expect(back.body.data).toMatchObject({ regions: ['eu', 'us', 'ap'], quorum: 2 });
  });

  it('refuses regions outside CHECK_REGIONS, an empty or repeated list, a quorum out of range, and both on a heartbeat', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ regions: ['eu', 'mars'] }, ['regions[1]']],
      [{ regions: [] }, ['regions']],
      [{ regions: ['eu', 'eu'] }, ['regions[1]']],
      [{ regions: 'eu' }, ['regions']],
      [{ quorum: 0 }, ['quorum']],
      [{ quorum: 4 }, ['quorum']],
      [{ regions: ['eu', 'us'], quorum: 3 }, ['quorum']],
      [{ quorum: 1.5 }, ['quorum']],
      [{ confirmAfterSeconds: 301 }, ['confirmAfterSeconds']],
      [{ confirmAfterSeconds: -1 }, ['confirmAfterSeconds']],
      [{ type: 'heartbeat', target: undefined, regions: ['eu'], quorum: 1 }, ['quorum', 'regions']],
    ];
    for (const [over, paths] of cases) {
      const res = await create(tokens.owner, over);
      expect([JSON.stringify(over), res.status]).toEqual([JSON.stringify(over), 400]);
      expect(issuePaths(res)).toEqual(paths);
    }
    const beat = await create(tokens.owner, { type: 'heartbeat', target: undefined });
    expect(beat.status).toBe(201);
    expect(beat.body.data).toMatchObject({ regions: ['eu'], quorum: 1 });
    const refused = await patch(tokens.owner, beat.body.data.id, { regions: ['eu'] });
    expect([refused.status, issuePaths(refused)]).toEqual([400, ['regions']]);
  });
});

describe('quorum across two workers of two regions', () => {
  it('opens exactly one incident when the quorum of regions fails, racing; carries evidence and reason; resolves when fewer fail', async () => {
    target.setStatus(503);
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await create(tokens.owner, {
      regions: ['eu', 'us'],
      quorum: 2,
      openThreshold: 1,
      resolveThreshold: 1,
      confirmAfterSeconds: 0,
    });
    const id = res.body.data.id as string;
    await waitFor(async () => (await h.prisma.checkResult.count({ where: { monitorId: id } })) === 2);
    await stopScheduledChecks(h, id);
    const [opened] = await h.prisma.incident.findMany({ where: { monitorId: id } });
    // Both immediate checks failed (threshold 1): the second region to store opened it, once.
    expect(await h.prisma.incident.count({ where: { monitorId: id } })).toBe(1);

    const got = await request(h.app).get(`/api/v1/incidents/${opened!.id}`).set(bearer(tokens.viewer));
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ reason: 'status_code', suppressedBy: null });
    // Each region's latest result, with the address its check talked to (the target on 127.0.0.1).
    const failed = { status: 'down', reason: 'unexpected_status:503', statusCode: 503, address: '127.0.0.1' };
    expect(got.body.data.evidence).toEqual([
      { region: 'eu', failing: true, lastResult: expect.objectContaining(failed) },
      { region: 'us', failing: true, lastResult: expect.objectContaining(failed) },
    ]);
    expect(typeof got.body.data.evidence[0].lastResult.totalMs).toBe('number');

    // eu recovers: 1 failing is fewer than the quorum of 2.
    target.setStatus(200);
    await agePastGap(h, id);
    const [eu] = await checkIn(id, ['eu']);
    expect(eu).toMatchObject({ resolved: opened!.id });

    // Both regions fail again at the same moment, five times: one incident more, never two open.
    target.setStatus(503);
    for (let i = 0; i < 5; i++) {
      await agePastGap(h, id);
      await checkIn(id, ['eu', 'us']);
    }
    expect(await h.prisma.incident.count({ where: { monitorId: id, status: { not: 'resolved' } } })).toBe(1);
  });

  it('quorum 1: one region failing alone opens', async () => {
    target.setStatus(503);
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await create(tokens.owner, { regions: ['eu', 'us'], quorum: 1, confirmAfterSeconds: 0 });
    const id = res.body.data.id as string;
    await waitFor(async () => (await h.prisma.checkResult.count({ where: { monitorId: id } })) === 2);
    await stopScheduledChecks(h, id);
    await agePastGap(h, id);
    await checkIn(id, ['eu']);
    const [incident] = await h.prisma.incident.findMany({ where: { monitorId: id } });
    expect(incident).toMatchObject({ status: 'open' });
    expect(incident!.evidence).toEqual([
      expect.objectContaining({ region: 'eu', failing: true }),
      expect.objectContaining({ region: 'us', failing: false }),
    ]);
  });
});

describe("a multi-region monitor's status", () => {
  it('follows the regions: one of three failing keeps it degraded without flapping; the quorum failing makes it down', async () => {
    target.setStatus(200);
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await create(tokens.owner, { regions: ['eu', 'us', 'ap'], quorum: 2, confirmAfterSeconds: 0 });
    const id = res.body.data.id as string;
    await waitFor(async () => (await h.prisma.checkResult.count({ where: { monitorId: id } })) === 2);
    await stopScheduledChecks(h, id);
    const monitor = { ...(await h.prisma.monitor.findUniqueOrThrow({ where: { id } })), regions: ['eu', 'us', 'ap'] };
    const base = Date.now() + 3_600_000;
    const store = (i: number, region: string, outcome: 'up' | 'down') =>
      storeCheckResultAlone(h.prisma, {
        monitor,
        region,
        slot: new Date(base + i * 60_000),
        checkedAt: new Date(base + i * 60_000),
        result: probeResult(outcome),
      });
    const status = async () => (await h.prisma.monitor.findUniqueOrThrow({ where: { id } })).status;
    const changes = () =>
      h.prisma.event.findMany({
        where: { subject: `monitors/${id}`, type: 'monitor.status_changed' },
        orderBy: { seq: 'asc' },
        select: { status: true },
      });
    expect(await status()).toBe('up');
    const before = (await changes()).length;

    // ap fails below the quorum, three rounds, each region storing in turn (ap last, then first).
    for (let i = 0; i < 3; i++) {
      for (const region of i % 2 ? ['ap', 'eu', 'us'] : ['eu', 'us', 'ap']) {
        await store(i, region, region === 'ap' ? 'down' : 'up');
        if (i > 0 || region === 'ap') expect(await status()).toBe('degraded');
      }
    }
    expect((await changes()).slice(before)).toEqual([{ status: 'degraded' }]);
    expect(await h.prisma.incident.count({ where: { monitorId: id } })).toBe(0);

    // us fails too: the quorum of 2 is down.
    await store(3, 'us', 'down');
    expect(await status()).toBe('down');
    await store(3, 'eu', 'up');
    expect(await status()).toBe('down');
    expect((await changes()).slice(before)).toEqual([{ status: 'degraded' }, { status: 'down' }]);
  });
});

describe('fast confirmation', () => {
  it('a first failure is re-checked confirmAfterSeconds after it, as its own result, which opens the incident', async () => {
    target.setStatus(503);
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await create(tokens.owner, { regions: ['eu'], confirmAfterSeconds: 2 });
    const id = res.body.data.id as string;
    const [first] = await waitFor(async () => {
      const r = await h.prisma.checkResult.findMany({ where: { monitorId: id } });
      return r.length ? r : null;
    });
    await stopScheduledChecks(h, id);
    expect(await regionStates(h, id)).toMatchObject([{ region: 'eu', consecutiveFailures: 1, failing: false }]);
    const slot = new Date(first!.checkedAt.getTime() + 2000);
    expect((await h.prisma.monitorRegionState.findFirstOrThrow({ where: { monitorId: id } })).confirmSlot).toEqual(
      slot,
    );
    const job = await h.deps.scheduler.queues.get('eu')!.getJob(confirmationJobId(id, 'eu', slot));
    expect(job).toBeDefined();

    const incident = await waitFor(() => h.prisma.incident.findFirst({ where: { monitorId: id } }), 10_000);
    const results = await h.prisma.checkResult.findMany({ where: { monitorId: id }, orderBy: { checkedAt: 'asc' } });
    expect(results.map((r) => [r.outcome, r.slot.getTime()])).toEqual([
      ['down', first!.slot.getTime()],
      ['down', slot.getTime()],
    ]);
    expect(results[1]!.checkedAt.getTime()).toBeGreaterThanOrEqual(slot.getTime());
    expect(incident.startedAt).toEqual(results[1]!.checkedAt);
    // The threshold is reached: no further re-check is asked for.
    expect(await regionStates(h, id)).toMatchObject([{ consecutiveFailures: 2, failing: true }]);
    expect((await h.prisma.monitorRegionState.findFirstOrThrow({ where: { monitorId: id } })).confirmSlot).toBeNull();
  });

  it('exactly once: a job re-run after a crash arms the re-check it asked for; run twice, the re-check stores one result', async () => {
    target.setStatus(503);
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await create(tokens.owner, { regions: ['us'], confirmAfterSeconds: 300, openThreshold: 3 });
    const id = res.body.data.id as string;
    await waitFor(async () => (await h.prisma.checkResult.count({ where: { monitorId: id } })) === 1);
    await stopScheduledChecks(h, id);
    const queue = h.deps.scheduler.queues.get('us')!;
    await agePastGap(h, id);

    // A worker stores a counted failure and dies before queueing the re-check (no `confirmations`).
    const slot = new Date(1_960_000_000_000);
    const { confirmations: _, ...crashing } = workers.us!.deps;
    const stored = await runCheck(crashing, { monitorId: id, region: 'us', slot });
    expect(stored).toMatchObject({ stored: true, counted: true });
    const asked = (await h.prisma.monitorRegionState.findFirstOrThrow({ where: { monitorId: id } })).confirmSlot!;
    const confirmId = confirmationJobId(id, 'us', asked);
    expect(await queue.getJob(confirmId)).toBeUndefined();
    // The job runs again (stalled, retried): its result is already stored, and the re-check is queued now.
    const again = await runCheck(workers.us!.deps, { monitorId: id, region: 'us', slot });
    expect(again).toMatchObject({ stored: false, counted: false, confirmSlot: asked });
    const job = await queue.getJob(confirmId);
    expect(job).toBeDefined();
    // Queued again by a third run: still one job.
    await runCheck(workers.us!.deps, { monitorId: id, region: 'us', slot });
    expect((await queue.getDelayed()).filter((j) => j.id === confirmId)).toHaveLength(1);

    // The re-check runs (promoted rather than waiting 300 s), then runs again: one result for its slot.
    await job!.promote();
    await waitFor(async () => workers.us!.completed.some((c) => c.job.id === confirmId), 10_000, 're-check');
    const rerun = await runCheck(workers.us!.deps, { monitorId: id, region: 'us', slot: asked });
    expect(rerun).toMatchObject({ stored: false });
    expect(await h.prisma.checkResult.count({ where: { monitorId: id, slot: asked } })).toBe(1);
    // The re-check is too close to count (300 s): it is stored and clears what asked for it.
    expect((await h.prisma.monitorRegionState.findFirstOrThrow({ where: { monitorId: id } })).confirmSlot).toBeNull();
  });
});

describe('dependsOn', () => {
  it('takes monitors of the workspace only, refuses itself and cycles, and shows the list in order', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const other = await makeWorkspace(h.prisma);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(tokens.owner, { confirmAfterSeconds: 0 })).body.data.id);
    const foreign = (await create(other.tokens.owner)).body.data.id as string;
    const [a, b, c] = ids as [string, string, string];

    const ok = await patch(tokens.owner, a, { dependsOn: [c, b] });
    expect([ok.status, ok.body.data.dependsOn]).toEqual([200, [c, b]]);
    const created = await create(tokens.owner, { dependsOn: [a] });
    expect([created.status, created.body.data.dependsOn]).toEqual([201, [a]]);

    const cycle = await patch(tokens.owner, b, { dependsOn: [a] });
    expect([cycle.status, issuePaths(cycle)]).toEqual([400, ['dependsOn']]);
    expect(cycle.body.error.details.issues[0].message).toMatch(/cycle/);
    const self = await patch(tokens.owner, b, { dependsOn: [b] });
    expect([self.status, issuePaths(self)]).toEqual([400, ['dependsOn[0]']]);
    const across = await patch(tokens.owner, b, { dependsOn: [c, foreign] });
    expect([across.status, issuePaths(across)]).toEqual([400, ['dependsOn[1]']]);
    const twice = await patch(tokens.owner, b, { dependsOn: [c, c] });
    expect([twice.status, issuePaths(twice)]).toEqual([400, ['dependsOn[1]']]);
    // On create, a foreign id and a bad field of the schema are named in one 400.
    const both = await create(tokens.owner, { dependsOn: [c, foreign], timeoutMs: -1 });
    expect([both.status, issuePaths(both).sort()]).toEqual([400, ['dependsOn[1]', 'timeoutMs']]);
    const eleven = await create(tokens.owner, { dependsOn: Array.from({ length: 11 }, () => a) });
    expect(eleven.status).toBe(400);
    expect(issuePaths(eleven)).toContain('dependsOn');
    // Nothing half-written: b still depends on nothing.
    const got = await request(h.app).get(`/api/v1/monitors/${b}`).set(bearer(tokens.owner));
    expect(got.body.data.dependsOn).toEqual([]);
    // Deleting a monitor removes it from the lists that name it; clearing works.
    expect((await request(h.app).delete(`/api/v1/monitors/${c}`).set(bearer(tokens.owner))).status).toBe(204);
    expect((await request(h.app).get(`/api/v1/monitors/${a}`).set(bearer(tokens.owner))).body.data.dependsOn).toEqual([
      b,
    ]);
    expect((await patch(tokens.owner, a, { dependsOn: [] })).body.data.dependsOn).toEqual([]);
  });

  it("a monitor's incident opened while a monitor it depends on has one open is suppressed by it", async () => {
    target.setStatus(503);
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const parent = (await create(tokens.owner, { regions: ['eu'], confirmAfterSeconds: 0 })).body.data.id as string;
    await stopScheduledChecks(h, parent);
    const parentIncident = await h.prisma.incident.create({
      data: { workspaceId: ws.id, monitorId: parent, openMonitorId: parent, title: 'db is down' },
    });
    const child = (
      await create(tokens.owner, { regions: ['eu'], openThreshold: 1, confirmAfterSeconds: 0, dependsOn: [parent] })
    ).body.data.id as string;
    const incident = await waitFor(() => h.prisma.incident.findFirst({ where: { monitorId: child } }), 10_000);
    await stopScheduledChecks(h, child);
    expect(incident.suppressedById).toBe(parentIncident.id);
    const shown = await request(h.app).get(`/api/v1/incidents/${incident.id}`).set(bearer(tokens.viewer));
    expect(shown.body.data.suppressedBy).toBe(parentIncident.id);
  });
});
