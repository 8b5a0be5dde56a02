// Thresholds count confirmations, not results (issue 12 item 2): a region's result counts only confirmAfterSeconds
// (default 15 s) after its previous counted one, each region keeps its own counters, and a quorum of the monitor's
// regions (default a majority) opens; fewer failing resolve (issue 15). Real queue, real workers, a real target on
// 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { confirmationJobId } from '@statusvane/shared';
import type { CheckOutcome } from '../apps/worker/src/checks/run-check.js';
import { storeCheckResultAlone } from '../apps/worker/src/checks/store-result.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import {
  agePastGap,
  CLEAR_OF_SLOTS,
  firstResult,
  checkOnce as checkOnceVia,
  probeResult,
  regionStates,
  startRegionWorkers,
  startSwitchTarget,
  startWorker,
  waitFor,
  stopScheduledChecks,
} from './support/worker-harness.js';

// Under a full suite on two cores a first check can take longer than Jest's default 20 s allows the waits below.
jest.setTimeout(60_000);

let target: Awaited<ReturnType<typeof startSwitchTarget>>;
beforeAll(async () => {
  target = await startSwitchTarget();
});
afterAll(async () => {
  await target.close();
});

const counted = (outcome: CheckOutcome | undefined) => (outcome && 'counted' in outcome ? outcome.counted : null);

async function createMonitor(h: Harness, over: Record<string, unknown> = {}) {
  const { tokens } = await makeWorkspace(h.prisma);
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(tokens.owner))
    .send(makeMonitorInput({ target: target.url, openThreshold: 2, resolveThreshold: 2, ...CLEAR_OF_SLOTS, ...over }));
  expect(res.status).toBe(201);
  return { tokens, monitor: res.body.data as { id: string } };
}

describe('one region', () => {
  let h: Harness;
  let w: ReturnType<typeof startWorker>;
  beforeAll(() => {
    h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
    w = startWorker(h);
  });
  afterAll(async () => {
    await w.close();
    await h.close();
  });

  // In the order they were taken: a promoted slot (runNextSlotNow) is up to a day ahead (CLEAR_OF_SLOTS).
  const results = (monitorId: string) =>
    h.prisma.checkResult.findMany({ where: { monitorId }, orderBy: { checkedAt: 'asc' } });
  const incidents = (monitorId: string) => h.prisma.incident.findMany({ where: { monitorId } });
  const outcomeOf = (jobId: string, monitorId?: string) =>
    w.completed.find((c) => c.job.id === jobId && (!monitorId || c.monitorId === monitorId))?.outcome;

  // A new monitor's first result; under a full suite on two cores it can take longer than 10 s.
  const firstCheck = (monitorId: string) => firstResult(h, monitorId, 30_000);

  /** Runs the monitor's next scheduled slot now, as if it fell seconds after the check before it; its job id. */
  async function runNextSlotNow(monitorId: string): Promise<string> {
    // Its partition's next job (docs/adr/0020-partitioned-scheduling.md).
    const m = await h.prisma.monitor.findUniqueOrThrow({
      where: { id: monitorId },
      select: { intervalSeconds: true, checkOffsetMs: true },
    });
    const queue = h.deps.scheduler.partitionQueues.get('local')!;
    const next = await waitFor(
      async () =>
        (await queue.getDelayed()).find(
          (j) => j.data.everyMs === m.intervalSeconds * 1000 && j.data.offsetMs === m.checkOffsetMs,
        ),
      5000,
      'the next scheduled slot',
    );
    await next.promote();
    await waitFor(async () => outcomeOf(next.id!, monitorId), 10_000, `slot job ${next.id}`);
    return next.id!;
  }

  it('the immediate check of a new monitor and its first slot seconds later are one confirmation: no incident with openThreshold 2', async () => {
    target.setStatus(503);
    const { monitor } = await createMonitor(h);
    const first = await firstCheck(monitor.id);
    const slotJob = await runNextSlotNow(monitor.id);

    const stored = await results(monitor.id);
    expect(stored.map((r) => r.outcome)).toEqual(['down', 'down']);
    expect(stored[1]!.checkedAt.getTime() - first.checkedAt.getTime()).toBeLessThan(15_000);
    expect(counted(outcomeOf(slotJob, monitor.id))).toBe(false);
    expect(await incidents(monitor.id)).toEqual([]);
    // Stored and shown: the monitor's status and last check are the second result's, the counters are the first's.
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } });
    expect([row.status, row.lastCheckedAt]).toEqual(['down', stored[1]!.checkedAt]);
    expect(await regionStates(h, monitor.id)).toEqual([
      {
        region: 'local',
        consecutiveFailures: 1,
        consecutivePasses: 0,
        failing: false,
        lastCountedAt: first.checkedAt,
      },
    ]);

    // A confirmation (taken an interval later) opens it.
    await checkOnceVia(h, w.completed, monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(1);
  });

  it('a resume just before a slot: the resume check and the slot are one confirmation', async () => {
    target.setStatus(200);
    const { monitor, tokens } = await createMonitor(h);
    await firstCheck(monitor.id);
    const patch = (enabled: boolean) =>
      request(h.app).patch(`/api/v1/monitors/${monitor.id}`).set(bearer(tokens.owner)).send({ enabled });
    expect((await patch(false)).status).toBe(200);
    // The target fails while the monitor is paused (for longer than the gap).
    target.setStatus(503);
    await agePastGap(h, monitor.id);
    expect((await patch(true)).status).toBe(200);
    await waitFor(async () => (await results(monitor.id)).length === 2, 30_000, 'the resume check');
    await runNextSlotNow(monitor.id);

    expect((await results(monitor.id)).map((r) => r.outcome)).toEqual(['up', 'down', 'down']);
    expect(await incidents(monitor.id)).toEqual([]);
    expect(await regionStates(h, monitor.id)).toMatchObject([{ consecutiveFailures: 1, consecutivePasses: 0 }]);
    await checkOnceVia(h, w.completed, monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(1);
  });

  it('confirmAfterSeconds longer than since the last counted pass (as above a short interval): a failure seconds after a counted pass counts and its re-check, confirmAfterSeconds later, opens', async () => {
    // The quick bench's case (a 10 s monitor, confirmAfterSeconds 15): the last counted pass is less than
    // confirmAfterSeconds before the first failing check. That failure starts the confirmation at once; it used to
    // wait for the next check far enough from the pass, opening an interval late.
    target.setStatus(200);
    const confirmAfterSeconds = 300;
    const { monitor } = await createMonitor(h, { confirmAfterSeconds });
    await firstCheck(monitor.id);
    target.setStatus(503);
    const slotJob = await runNextSlotNow(monitor.id);
    const [pass, failure] = await results(monitor.id);
    expect([pass!.outcome, failure!.outcome]).toEqual(['up', 'down']);
    expect(failure!.checkedAt.getTime() - pass!.checkedAt.getTime()).toBeLessThan(confirmAfterSeconds * 1000);
    expect(counted(outcomeOf(slotJob, monitor.id))).toBe(true);
    expect(await regionStates(h, monitor.id)).toMatchObject([{ consecutiveFailures: 1, consecutivePasses: 0 }]);

    // The re-check is queued for the failure's time plus confirmAfterSeconds, under its own id.
    const queue = h.deps.scheduler.queues.get('local')!;
    const slot = new Date(failure!.checkedAt.getTime() + confirmAfterSeconds * 1000);
    const recheck = await waitFor(() => queue.getJob(confirmationJobId(monitor.id, 'local', slot)), 5000, 're-check');
    expect(await recheck.isDelayed()).toBe(true);
    // Run it now, as if its delay had passed (its result is taken confirmAfterSeconds after the failure).
    await agePastGap(h, monitor.id);
    await recheck.promote();
    await waitFor(async () => outcomeOf(recheck.id!), 10_000, 're-check job');
    expect(counted(outcomeOf(recheck.id!))).toBe(true);
    const opened = await incidents(monitor.id);
    expect(opened).toHaveLength(1);
    // Opened by the re-check's result, whose slot is the first failure's time plus confirmAfterSeconds.
    expect((await results(monitor.id)).map((r) => [r.outcome, r.slot.getTime()])).toEqual([
      ['up', pass!.slot.getTime()],
      ['down', failure!.slot.getTime()],
      ['down', slot.getTime()],
    ]);
  });

  it('a result too close to count moves no counter either way: a quick pass does not reset the failures', async () => {
    target.setStatus(503);
    const { monitor } = await createMonitor(h, { openThreshold: 3 });
    await firstCheck(monitor.id);
    await stopScheduledChecks(h, monitor.id);
    await checkOnceVia(h, w.completed, monitor.id);
    target.setStatus(200);
    await checkOnceVia(h, w.completed, monitor.id, { confirmation: false });
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).status).toBe('up');
    expect(await regionStates(h, monitor.id)).toMatchObject([{ consecutiveFailures: 2, consecutivePasses: 0 }]);
    target.setStatus(503);
    await checkOnceVia(h, w.completed, monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(1);
  });

  it('gives back the re-check slot only to the result that asked for it, and to a duplicate of it', async () => {
    target.setStatus(200);
    const { monitor: created } = await createMonitor(h, { confirmAfterSeconds: 15 });
    await firstCheck(created.id);
    await stopScheduledChecks(h, created.id);
    const monitor = {
      ...(await h.prisma.monitor.findUniqueOrThrow({ where: { id: created.id } })),
      regions: ['local'],
    };
    const base = Date.now() + 3_600_000;
    const store = (offsetSeconds: number, outcome: 'up' | 'down') =>
      storeCheckResultAlone(h.prisma, {
        monitor,
        region: 'local',
        slot: new Date(base + offsetSeconds * 1000),
        checkedAt: new Date(base + offsetSeconds * 1000),
        result: probeResult(outcome),
      });
    const recheck = new Date(base + 15_000);
    // A first failure asks for a re-check 15 s later.
    expect(await store(0, 'down')).toMatchObject({ stored: true, counted: true, confirmSlot: recheck });
    // Another result of the region before it (too close to count) asked for nothing: the re-check is queued already.
    expect(await store(5, 'down')).toMatchObject({ stored: true, counted: false, confirmSlot: null });
    // The first result again (a job re-run after a crash): the pending re-check, to arm what the first run could not.
    expect(await store(0, 'down')).toMatchObject({ stored: false, confirmSlot: recheck });
  });
});

describe('two regions, a worker each with its own connections', () => {
  let h: Harness;
  let regions: ReturnType<typeof startRegionWorkers>;
  beforeAll(() => {
    h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8', CHECK_REGIONS: 'eu,us' });
    regions = startRegionWorkers(h, ['eu', 'us']);
  });
  afterAll(async () => {
    await regions.close();
    await h.close();
  });

  const incidents = (monitorId: string) => h.prisma.incident.findMany({ where: { monitorId } });
  const checkIn = (monitorId: string, inRegions: string[], count = 1) => regions.checkIn(monitorId, inRegions, count);

  it('one result per region at the same instant opens nothing; both regions (the quorum of two) confirmed failing open exactly one incident; one confirming a recovery resolves it', async () => {
    target.setStatus(503);
    const { monitor } = await createMonitor(h);
    // The immediate checks of both regions, within moments of each other: one failure counted per region.
    await waitFor(async () => (await h.prisma.checkResult.count({ where: { monitorId: monitor.id } })) === 2);
    await stopScheduledChecks(h, monitor.id);
    expect(await incidents(monitor.id)).toEqual([]);
    expect(await regionStates(h, monitor.id)).toMatchObject([
      { region: 'eu', consecutiveFailures: 1, failing: false },
      { region: 'us', consecutiveFailures: 1, failing: false },
    ]);

    // Twenty checks per region at once, racing across the two workers: one confirmation per region counts, both
    // regions reach openThreshold, and exactly one incident opens.
    await agePastGap(h, monitor.id);
    const raced = await checkIn(monitor.id, ['eu', 'us'], 20);
    expect(raced.map(counted).filter(Boolean)).toHaveLength(2);
    expect(raced.filter((o) => o && 'opened' in o && o.opened)).toHaveLength(1);
    const [open] = await incidents(monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(1);
    expect(open).toMatchObject({ status: 'open', openMonitorId: monitor.id });
    expect(await regionStates(h, monitor.id)).toMatchObject([
      { region: 'eu', consecutiveFailures: 2, failing: true },
      { region: 'us', consecutiveFailures: 2, failing: true },
    ]);

    // eu confirms a recovery (resolveThreshold counted passes): one region failing is fewer than the quorum (a
    // majority of two is two), so the incident resolves at eu's second counted pass; us is still failing.
    target.setStatus(200);
    await agePastGap(h, monitor.id);
    await checkIn(monitor.id, ['eu']);
    expect((await incidents(monitor.id))[0]!.status).toBe('open');
    await agePastGap(h, monitor.id);
    const [last] = await checkIn(monitor.id, ['eu']);
    expect(last).toMatchObject({ resolved: open!.id });
    expect(await regionStates(h, monitor.id)).toMatchObject([
      { region: 'eu', consecutivePasses: 2, failing: false },
      { region: 'us', consecutiveFailures: 2, failing: true },
    ]);
    expect((await incidents(monitor.id))[0]).toMatchObject({ status: 'resolved', openMonitorId: null });
  });

  it('one region failing alone never opens (1 of 2 is not a majority)', async () => {
    target.setStatus(503);
    const { monitor } = await createMonitor(h, { openThreshold: 1 });
    await waitFor(async () => (await h.prisma.checkResult.count({ where: { monitorId: monitor.id } })) === 2);
    await stopScheduledChecks(h, monitor.id);
    // Opened by the two immediate checks (openThreshold 1, both regions failing): resolve it by hand, then only eu fails.
    const [open] = await incidents(monitor.id);
    expect(open).toMatchObject({ status: 'open' });
    await h.prisma.$transaction([
      h.prisma.incident.update({
        where: { id: open!.id },
        data: { status: 'resolved', resolvedAt: new Date(), openMonitorId: null },
      }),
      h.prisma.monitorRegionState.deleteMany({ where: { monitorId: monitor.id } }),
    ]);
    for (let i = 0; i < 3; i++) {
      await agePastGap(h, monitor.id);
      await checkIn(monitor.id, ['eu']);
    }
    expect(await regionStates(h, monitor.id)).toMatchObject([{ region: 'eu', consecutiveFailures: 3, failing: true }]);
    expect((await incidents(monitor.id)).filter((i) => i.status !== 'resolved')).toEqual([]);
    await agePastGap(h, monitor.id);
    await checkIn(monitor.id, ['us']);
    expect((await incidents(monitor.id)).filter((i) => i.status !== 'resolved')).toHaveLength(1);
  });
});
