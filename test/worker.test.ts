import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Job } from 'bullmq';
import { createPrisma } from '@statusvane/shared';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { runCheck } from '../apps/worker/src/checks/run-check.js';
import {
  agePastGap,
  CLEAR_OF_SLOTS,
  checkOnce as checkOnceVia,
  regionStates,
  startSwitchTarget,
  startWorker,
  waitFor,
  stopScheduledChecks,
} from './support/worker-harness.js';

let h: Harness;
let w: ReturnType<typeof startWorker>;
let target: Awaited<ReturnType<typeof startSwitchTarget>>;
beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8,::1/128' });
  w = startWorker(h);
  target = await startSwitchTarget();
});
afterAll(async () => {
  await w.close();
  await target.close();
  await h.close();
});

const checkOnce = (monitorId: string) => checkOnceVia(h, w.completed, monitorId);

const results = (monitorId: string) =>
  h.prisma.checkResult.findMany({ where: { monitorId }, orderBy: [{ checkedAt: 'asc' }, { slot: 'asc' }] });
const incidents = (monitorId: string) =>
  h.prisma.incident.findMany({ where: { monitorId }, orderBy: { startedAt: 'asc' } });

async function newMonitor(over: Record<string, unknown> = {}) {
  const { ws, tokens } = await makeWorkspace(h.prisma);
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(tokens.owner))
    .send(
      makeMonitorInput({
        target: target.url,
        openThreshold: 3,
        resolveThreshold: 2,
        metadata: { team: 'payments', tier: '1' },
        // Its first check (queued by the create) and the ones a test runs, no scheduled slot among them.
        ...CLEAR_OF_SLOTS,
        ...over,
      }),
    );
  expect(res.status).toBe(201);
  return { ws, tokens, monitor: res.body.data as { id: string; componentId: string } };
}

describe('checks through the real queue', () => {
  it('runs the first check within seconds of creation and stores the result', async () => {
    target.setStatus(200);
    const { monitor, tokens } = await newMonitor();
    const [first] = await waitFor(async () => {
      const r = await results(monitor.id);
      return r.length ? r : null;
    });
    expect(first).toMatchObject({ outcome: 'up', statusCode: 200, region: 'local', reason: null });
    const read = await request(h.app).get(`/api/v1/monitors/${monitor.id}`).set(bearer(tokens.viewer));
    expect(read.body.data.status).toBe('up');
    expect(read.body.data.lastCheckedAt).not.toBeNull();
  });

  it('opens an incident after exactly openThreshold failures, with the metadata, and resolves after resolveThreshold passes', async () => {
    target.setStatus(200);
    const { monitor } = await newMonitor();
    await waitFor(async () => (await results(monitor.id)).length === 1);
    target.setStatus(503);
    await checkOnce(monitor.id);
    await checkOnce(monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(0);
    await checkOnce(monitor.id);
    const opened = await incidents(monitor.id);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({
      status: 'open',
      impact: 'major',
      source: 'monitor',
      title: 'Homepage is down',
      metadata: { team: 'payments', tier: '1' },
    });
    const downs = (await results(monitor.id)).filter((r) => r.outcome === 'down');
    expect(downs.map((r) => r.reason)).toEqual([
      'unexpected_status:503',
      'unexpected_status:503',
      'unexpected_status:503',
    ]);
    await checkOnce(monitor.id); // still failing: no second incident
    expect(await incidents(monitor.id)).toHaveLength(1);

    target.setStatus(200);
    await checkOnce(monitor.id);
    expect((await incidents(monitor.id))[0]!.status).toBe('open');
    await checkOnce(monitor.id);
    const [resolved] = await incidents(monitor.id);
    expect(resolved).toMatchObject({ status: 'resolved', openMonitorId: null });
    expect(resolved!.resolvedAt).not.toBeNull();
  });

  it('a job that runs twice through the queue (re-run after completing, and a second job for the same slot) stores once and counts once', async () => {
    target.setStatus(503);
    const { monitor } = await newMonitor({ openThreshold: 3 });
    await waitFor(async () => (await results(monitor.id)).length === 1);
    // Only the jobs below may run: the monitor's own schedule would add a result of its own within the interval.
    await stopScheduledChecks(h, monitor.id);
    const queue = h.deps.scheduler.queues.get('local')!;
    const done = (jobId: string, runs: number) =>
      waitFor(
        async () => w.completed.filter((c) => c.job.id === jobId).length >= runs,
        10_000,
        `${runs} run(s) of ${jobId}`,
      );
    const slot = 1_700_000_000_000;
    const opts = { timestamp: slot, attempts: 8, backoff: { type: 'exponential' as const, delay: 1000 } };
    const data = { monitorId: monitor.id, region: 'local' };
    // The job below counts as a confirmation, not as a result seconds after the first check.
    await agePastGap(h, monitor.id);

    const job = await queue.add('check', data, { ...opts, jobId: `dup-a-${monitor.id}` });
    await done(job.id!, 1);
    // The same job again, as after a stalled-job handover: BullMQ moves the completed job back to wait.
    await job.retry('completed');
    await done(job.id!, 2);
    // Another job for the same slot (two producers enqueued it).
    await queue.add('check', data, { ...opts, jobId: `dup-b-${monitor.id}` });
    await done(`dup-b-${monitor.id}`, 1);

    const outcomes = w.completed
      .filter((c) => [job.id, `dup-b-${monitor.id}`].includes(c.job.id))
      .map((c) => (c.outcome as { stored: boolean }).stored);
    expect(outcomes).toEqual([true, false, false]);
    const stored = await results(monitor.id);
    expect(stored.filter((r) => r.slot.getTime() === slot)).toHaveLength(1);
    expect(stored).toHaveLength(2);
    // The flap counters saw two failures, not four: openThreshold 3 is not reached, so no incident.
    expect(await regionStates(h, monitor.id)).toMatchObject([
      { region: 'local', consecutiveFailures: 2, consecutivePasses: 0, failing: false },
    ]);
    expect(await incidents(monitor.id)).toHaveLength(0);
    const [rollup] = await h.prisma.$queryRaw<Array<{ hourly: number; daily: number }>>`
      SELECT (SELECT sum(total) FROM check_rollups_hourly WHERE "monitorId" = ${monitor.id}::uuid)::int AS hourly,
             (SELECT sum(total) FROM check_rollups_daily WHERE "monitorId" = ${monitor.id}::uuid)::int AS daily`;
    expect(rollup).toEqual({ hourly: 2, daily: 2 });
  });

  it('keeps at most one open incident when two workers with their own connections race on a monitor', async () => {
    target.setStatus(503);
    const { monitor, ws } = await newMonitor({ openThreshold: 1 });
    await waitFor(async () => (await incidents(monitor.id)).length === 1);
    // Only the racing jobs may run: the monitor's own schedule would add a failure of its own within the interval.
    await stopScheduledChecks(h, monitor.id);
    // Start from a clean slate: no incident, no flap state.
    await h.prisma.incident.deleteMany({ where: { monitorId: monitor.id } });
    await h.prisma.monitorRegionState.deleteMany({ where: { monitorId: monitor.id } });

    // A second worker as another process has it: its own PostgreSQL pool (and so its own group-commit writer) and its
    // own Redis connection, on the same queue.
    const prisma2 = createPrisma(h.config.databaseUrl, { max: 5 });
    const w2 = startWorker(h, 'local', { prisma: prisma2 });
    const ids = Array.from({ length: 40 }, (_, i) => `race-${monitor.id}-${i}`);
    const outcomes = () =>
      ids.flatMap((id) => [...w.completed, ...w2.completed].filter((c) => c.job.id === id).map((c) => c.outcome));
    try {
      await w2.worker.waitUntilReady();
      const queue = h.deps.scheduler.queues.get('local')!;
      const base = 1_800_000_000_000;
      await queue.addBulk(
        ids.map((jobId, i) => ({
          name: 'check',
          data: { monitorId: monitor.id, region: 'local' },
          opts: { jobId, timestamp: base + i * 1000 },
        })),
      );
      await waitFor(async () => outcomes().length === ids.length, 20_000, 'all 40 racing checks');
      // Both workers took part.
      for (const one of [w, w2]) expect(one.completed.filter((c) => ids.includes(c.job.id!)).length).toBeGreaterThan(0);
    } finally {
      await w2.close();
      await prisma2.$disconnect();
    }
    const open = await incidents(monitor.id);
    expect(open).toHaveLength(1);
    expect(open[0]!.openMonitorId).toBe(monitor.id);
    const raced = (await results(monitor.id)).filter((r) => r.slot.getTime() >= 1_800_000_000_000);
    expect(raced).toHaveLength(40);
    // Taken within a second, the 40 results are one confirmation: exactly one counted, whichever worker stored it
    // (each transaction saw the region state the previous one committed).
    expect(outcomes().filter((o) => 'counted' in o && o.counted)).toHaveLength(1);
    const [state] = await regionStates(h, monitor.id);
    expect(state).toMatchObject({ consecutiveFailures: 1, failing: true });
    expect(raced.map((r) => r.checkedAt.getTime())).toContain(state!.lastCountedAt!.getTime());

    // The database is the backstop, not the lock alone: two transactions that both decided to open an incident for
    // the monitor (as two workers without the row lock would) cannot both commit.
    await h.prisma.incident.updateMany({
      where: { monitorId: monitor.id },
      data: { status: 'resolved', resolvedAt: new Date(), openMonitorId: null },
    });
    const prismaB = createPrisma(h.config.databaseUrl, { max: 2 });
    try {
      const row = {
        workspaceId: ws.id,
        monitorId: monitor.id,
        openMonitorId: monitor.id,
        title: 'race',
        status: 'open' as const,
        source: 'monitor' as const,
      };
      let inserted!: () => void;
      const firstInserted = new Promise<void>((r) => (inserted = r));
      const first = h.prisma.$transaction(async (tx) => {
        await tx.incident.create({ data: row });
        inserted();
        // Still uncommitted while the second one inserts (and waits on the unique index).
        await new Promise((r) => setTimeout(r, 300));
      });
      const second = firstInserted.then(() => prismaB.$transaction(async (tx) => tx.incident.create({ data: row })));
      const settled = await Promise.allSettled([first, second]);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected']);
    } finally {
      await prismaB.$disconnect();
    }
    expect(await h.prisma.incident.count({ where: { monitorId: monitor.id, status: { not: 'resolved' } } })).toBe(1);
  });

  it('a deleted incident resets the counters: a new one needs openThreshold fresh failures', async () => {
    target.setStatus(503);
    const { monitor, tokens } = await newMonitor({ openThreshold: 2 });
    // The first check, then a confirmation (a check seconds after it, as a second job would be, does not count).
    await waitFor(async () => (await results(monitor.id)).length === 1);
    await checkOnce(monitor.id);
    const [first] = await waitFor(async () => {
      const i = await incidents(monitor.id);
      return i.length === 1 ? i : null;
    });
    expect((await request(h.app).delete(`/api/v1/incidents/${first!.id}`).set(bearer(tokens.admin))).status).toBe(204);
    await checkOnce(monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(0);
    await checkOnce(monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(1);
  });

  it('records results but opens no incident during maintenance that covers the monitor', async () => {
    target.setStatus(503);
    const { ws, tokens } = await makeWorkspace(h.prisma);
    // A whole-workspace window, in progress before the monitor's first check.
    await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: ws.id,
        title: 'deploy',
        startsAt: new Date(Date.now() - 60_000),
        endsAt: new Date(Date.now() + 3_600_000),
      },
    });
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send(makeMonitorInput({ target: target.url, openThreshold: 1 }));
    const monitor = res.body.data as { id: string };
    expect(res.body.data.maintenanceUntil).not.toBeNull();
    await waitFor(async () => (await results(monitor.id)).length >= 1);
    await checkOnce(monitor.id);
    await checkOnce(monitor.id);
    const stored = await results(monitor.id);
    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect(stored.every((r) => r.outcome === 'down')).toBe(true);
    expect(await incidents(monitor.id)).toHaveLength(0);
    // When the window ends, the failures that continue open the incident.
    await h.prisma.maintenanceWindow.updateMany({ where: { workspaceId: ws.id }, data: { endsAt: new Date() } });
    await checkOnce(monitor.id);
    expect(await incidents(monitor.id)).toHaveLength(1);
  });

  it('skips paused monitors', async () => {
    target.setStatus(200);
    const { monitor, tokens } = await newMonitor();
    await waitFor(async () => (await results(monitor.id)).length === 1);
    await request(h.app).patch(`/api/v1/monitors/${monitor.id}`).set(bearer(tokens.owner)).send({ enabled: false });
    const job = {
      data: { monitorId: monitor.id, region: 'local' },
      opts: {},
      timestamp: Date.now() + 5,
    } as unknown as Job;
    expect(await w.processor(job)).toEqual({ skipped: 'monitor paused' });
  });
});

describe('a monitor whose secrets cannot be decrypted', () => {
  it('stores a down config_error result (no retries, no lost slot) and logs it once, without the secret', async () => {
    // A target of its own: the suite's other monitors check the shared one on their schedules meanwhile.
    const own = await startSwitchTarget();
    try {
      const { monitor } = await newMonitor({
        target: own.url,
        headers: { Authorization: 'Bearer sekrit-header-123' },
        method: 'POST',
        body: 'sekrit-body-456',
      });
      await waitFor(async () => (await results(monitor.id)).length === 1);
      const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } });
      // Names the configured key, but is not a value that key ever produced.
      const keyId = w.deps.keyring.current.id;
      const garbage = `v1:${keyId}:${Buffer.from('this is not a ciphertext of anything at all').toString('base64')}`;
      await h.prisma.monitor.update({ where: { id: monitor.id }, data: { headersEnc: garbage } });
      // Only the checks below: none on its schedule (it would log the problem first, to the worker's logger), and
      // none still sending with the headers it read before the update.
      await stopScheduledChecks(h, monitor.id);
      const queue = h.deps.scheduler.queues.get('local')!;
      const pending = ['active', 'waiting', 'delayed', 'prioritized'] as const;
      await waitFor(async () => !(await queue.getJobs([...pending])).some((j) => j.data.monitorId === monitor.id));

      const logged: Array<{ level: string; args: unknown[] }> = [];
      const logger = Object.fromEntries(
        ['error', 'warn', 'info', 'debug'].map((level) => [
          level,
          (...args: unknown[]) => logged.push({ level, args }),
        ]),
      );
      const deps = { ...w.deps, logger: logger as unknown as typeof w.deps.logger };
      const hitsBefore = own.hits();
      for (const slot of [1_900_000_000_000, 1_900_000_060_000]) {
        const outcome = await runCheck(deps, { monitorId: monitor.id, region: 'local', slot: new Date(slot) });
        expect(outcome).toMatchObject({
          stored: true,
          result: { outcome: 'down', statusCode: null, responseMs: null },
        });
      }
      const stored = (await results(monitor.id)).filter((r) => r.slot.getTime() >= 1_900_000_000_000);
      expect(stored.map((r) => r.reason)).toEqual([
        `config_error: the stored headers or body cannot be decrypted with key ${keyId} (damaged value)`,
        `config_error: the stored headers or body cannot be decrypted with key ${keyId} (damaged value)`,
      ]);
      expect(own.hits()).toBe(hitsBefore); // nothing was sent without its headers
      // Logged once for the two checks, naming the monitor and key id, never the values.
      expect(logged).toHaveLength(1);
      expect(logged[0]!.level).toBe('error');
      expect(logged[0]!.args[1]).toMatchObject({ monitorId: monitor.id, encKeyIds: [keyId] });
      const text = JSON.stringify(logged);
      for (const secret of [garbage, row.bodyEnc!, 'sekrit-header-123', 'sekrit-body-456'])
        expect(text).not.toContain(secret);

      // Through the real queue: the job completes with the failing result rather than failing through its retries.
      const failedBefore = await h.deps.scheduler.queues.get('local')!.getFailedCount();
      await checkOnce(monitor.id);
      const last = (await results(monitor.id)).at(-1)!;
      expect(last).toMatchObject({ outcome: 'down' });
      expect(last.reason).toMatch(/^config_error: /);
      expect(await h.deps.scheduler.queues.get('local')!.getFailedCount()).toBe(failedBefore);
      expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).status).toBe('down');

      // A key that is not configured at all (a rotation that dropped the old key too early).
      // Values name their key (v1:<keyId>:...): this one names a key that no configured key has.
      expect(row.headersEnc).toMatch(new RegExp(`^v1:${keyId}:`));
      await h.prisma.monitor.update({
        where: { id: monitor.id },
        data: { headersEnc: row.headersEnc!.replace(`v1:${keyId}:`, 'v1:ffffffffffff:') },
      });
      const unknown = await runCheck(deps, {
        monitorId: monitor.id,
        region: 'local',
        slot: new Date(1_900_000_120_000),
      });
      expect(unknown).toMatchObject({
        stored: true,
        result: {
          outcome: 'down',
          reason: 'config_error: encryption key ffffffffffff is not configured (ENCRYPTION_KEY / ENCRYPTION_OLD_KEYS)',
        },
      });
    } finally {
      await own.close();
    }
  });
});

describe('heartbeats', () => {
  it('a ping passes, an explicit failure ping fails at once, silence past the grace fails', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const hb = (
      await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.owner))
        .send({ type: 'heartbeat', name: 'cron', openThreshold: 1 })
    ).body.data;
    const path = new URL(hb.pingUrl).pathname;
    await waitFor(async () => w.completed.some((c) => c.job.data.monitorId === hb.id));
    expect(await results(hb.id)).toHaveLength(0); // never pinged, still within its first period: pending

    expect((await request(h.app).get(path)).status).toBe(200);
    await checkOnce(hb.id);
    expect((await results(hb.id)).at(-1)).toMatchObject({ outcome: 'up' });

    // A fail ping moments after a counted pass would not count (it is less than 15 s later): as if it came later.
    await agePastGap(h, hb.id);
    expect((await request(h.app).post(`${path}/fail`)).status).toBe(200);
    await waitFor(async () => (await results(hb.id)).at(-1)?.outcome === 'down', 10_000, 'the fail ping result');
    expect((await results(hb.id)).at(-1)?.reason).toBe('fail_ping');
    expect(await incidents(hb.id)).toHaveLength(1);

    // Silence: the last ping was longer ago than interval + grace.
    await h.prisma.monitor.update({
      where: { id: hb.id },
      data: { lastPingAt: new Date(Date.now() - 200_000), lastPingFailAt: null },
    });
    await checkOnce(hb.id);
    expect((await results(hb.id)).at(-1)).toMatchObject({ outcome: 'down', reason: 'heartbeat_missed' });
  });

  it('a missed deadline is reported by its deadline job when it passes, not at the next scheduled run; pings after it are judged at once', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send({
      type: 'heartbeat',
      name: 'cron',
      intervalSeconds: 60,
      graceSeconds: 0,
      openThreshold: 1,
      resolveThreshold: 2,
    });
    const hb = created.body.data as { id: string; pingUrl: string };
    await waitFor(async () => w.completed.some((c) => c.job.data.monitorId === hb.id), 10_000, 'the first evaluation');
    // Deadline jobs only: the monitor's schedule (every 60 s) could otherwise evaluate in the window and report it first.
    await stopScheduledChecks(h, hb.id);
    const queue = h.deps.scheduler.queues.get('local')!;

    // The last ping was 57 s ago (the 60 s floor on intervals stays): the deadline is 3 s away. An evaluation (here
    // the one a ping would queue) sees it, stores its pass and arms the deadline job.
    const lastPing = Date.now() - 57_000;
    const deadline = lastPing + 60_000;
    await h.prisma.monitor.update({ where: { id: hb.id }, data: { lastPingAt: new Date(lastPing) } });
    await checkOnce(hb.id);
    expect((await results(hb.id)).map((r) => [r.outcome, r.slot.getTime()])).toEqual([['up', lastPing]]);
    const deadlineJob = `hb-${hb.id}-local-${deadline + 1}`;
    expect(await (await queue.getJob(deadlineJob))?.getState()).toBe('delayed');
    // The deadline's failure comes 3 s after that pass: it counts as if the pass had been taken earlier.
    await agePastGap(h, hb.id);

    const down = await waitFor(
      async () => (await results(hb.id)).find((r) => r.outcome === 'down'),
      10_000,
      'the missed deadline',
    );
    // One failing result for the missed period, keyed by its deadline, stored within moments of it.
    expect(down).toMatchObject({ reason: 'heartbeat_missed', slot: new Date(deadline) });
    expect(down.checkedAt.getTime()).toBeGreaterThan(deadline);
    expect(down.checkedAt.getTime() - deadline).toBeLessThan(3000);
    // The job completes after its result committed (it arms the next deadline and opens the incident's escalation
    // first): wait for it rather than race it.
    const completed = await waitFor(
      async () => w.completed.find((c) => c.job.id === deadlineJob)?.outcome,
      10_000,
      'the deadline job',
    );
    expect(completed).toMatchObject({ stored: true, result: { reason: 'heartbeat_missed' } });
    const [incident] = await waitFor(async () => {
      const i = await incidents(hb.id);
      return i.length ? i : null;
    });
    // One name for a missed period, on the result, the incident and its evidence.
    expect(incident).toMatchObject({ status: 'open', startedAt: down.checkedAt, reason: 'heartbeat_missed' });
    expect(incident!.evidence).toMatchObject([{ region: 'local', lastResult: { reason: 'heartbeat_missed' } }]);
    // The next missed period is armed: one more failure a whole interval later, not before.
    expect(await (await queue.getJob(`hb-${hb.id}-local-${deadline + 60_000 + 1}`))?.getState()).toBe('delayed');

    // Recovery: each ping through the receiver is judged at once (no waiting for a deadline or the schedule), and
    // resolveThreshold 2 means two pings.
    const path = new URL(hb.pingUrl).pathname;
    for (const n of [1, 2]) {
      // Each ping counts as a confirmation would (a ping seconds after the previous counted result would not).
      await agePastGap(h, hb.id);
      const sent = Date.now();
      expect((await request(h.app).get(path)).status).toBe(200);
      const pass = await waitFor(
        async () => (await results(hb.id)).filter((r) => r.outcome === 'up')[n],
        5000,
        `the pass of ping ${n}`,
      );
      expect(pass.checkedAt.getTime() - sent).toBeLessThan(3000);
      const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } });
      expect(pass.slot).toEqual(row.lastPingAt);
      // The receiver queues at most one evaluation per monitor and second for success pings.
      if (n === 1) await new Promise((r) => setTimeout(r, 1100));
    }
    expect((await incidents(hb.id))[0]).toMatchObject({ status: 'resolved' });
    expect((await results(hb.id)).map((r) => r.outcome)).toEqual(['up', 'down', 'up', 'up']);
  });

  it('minRunSeconds: a run that ends sooner fails with run_too_short, a long enough one passes, a success without /start is not judged by it', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send({
      type: 'heartbeat',
      name: 'backup',
      intervalSeconds: 3600,
      graceSeconds: 60,
      minRunSeconds: 1,
      openThreshold: 1,
      resolveThreshold: 1,
    });
    expect(created.status).toBe(201);
    const hb = created.body.data as { id: string; pingUrl: string; minRunSeconds: number };
    expect(hb.minRunSeconds).toBe(1);
    const path = new URL(hb.pingUrl).pathname;
    await waitFor(async () => w.completed.some((c) => c.job.data.monitorId === hb.id), 10_000, 'the first evaluation');
    await stopScheduledChecks(h, hb.id);
    const status = async () =>
      (await request(h.app).get(`/api/v1/monitors/${hb.id}`).set(bearer(tokens.viewer))).body.data.status;

    // A backup that "finished" at once did not run: down at once, with the reason.
    expect((await request(h.app).get(`${path}/start`)).status).toBe(200);
    expect((await request(h.app).get(path)).status).toBe(200);
    const short = await waitFor(
      async () => (await results(hb.id)).find((r) => r.reason === 'run_too_short'),
      10_000,
      'the short run',
    );
    expect(short.outcome).toBe('down');
    expect(await status()).toBe('down');
    expect((await incidents(hb.id))[0]).toMatchObject({ status: 'open' });

    // A run of 1.2 s against minRunSeconds 1 passes.
    expect((await request(h.app).get(`${path}/start`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await request(h.app).get(`${path}/0`)).status).toBe(200);
    const long = await waitFor(
      async () => (await results(hb.id)).find((r) => r.slot > short.slot && r.outcome === 'up'),
      10_000,
      'the long enough run',
    );
    expect(long.reason).toBeNull();
    expect(await status()).toBe('up');

    // A success ping that ends no run has no duration: minRunSeconds says nothing about it.
    expect((await request(h.app).get(path)).status).toBe(200);
    await checkOnce(hb.id);
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } });
    const last = (await results(hb.id)).at(-1)!;
    expect([last.slot, last.outcome, last.reason]).toEqual([row.lastPingAt, 'up', null]);
    expect(row.lastRunDurationMs).toBeNull();
    expect(await status()).toBe('up');
  });

  it('runs: a start not ended within grace fails once with run_timeout when it passes; a run longer than maxRunSeconds fails with run_too_long', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send({
      type: 'heartbeat',
      name: 'backup',
      intervalSeconds: 3600,
      graceSeconds: 2,
      maxRunSeconds: 1,
      openThreshold: 1,
    });
    const hb = created.body.data as { id: string; pingUrl: string };
    const path = new URL(hb.pingUrl).pathname;
    await waitFor(async () => w.completed.some((c) => c.job.data.monitorId === hb.id), 10_000, 'the first evaluation');
    await stopScheduledChecks(h, hb.id);
    expect((await request(h.app).get(path)).status).toBe(200);
    await waitFor(async () => (await results(hb.id)).length === 1, 10_000, 'the first ping');

    // The start queues an evaluation that arms the run's timeout (start + grace), well before the interval's deadline.
    expect((await request(h.app).get(`${path}/start`)).status).toBe(200);
    const start = (await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } })).runStartedAt!;
    const timeout = await waitFor(
      async () => (await results(hb.id)).find((r) => r.reason === 'run_timeout'),
      10_000,
      'the run timeout',
    );
    expect(timeout.slot).toEqual(new Date(start.getTime() + 2000));
    expect(timeout.checkedAt.getTime() - timeout.slot.getTime()).toBeLessThan(3000);
    // Judged once: evaluating again stores nothing more.
    await checkOnce(hb.id);
    expect((await results(hb.id)).filter((r) => r.reason === 'run_timeout')).toHaveLength(1);

    // A run of 1.2 s against maxRunSeconds 1: its end fails at once.
    const rid = 'b7c9a3e2-1111-4222-8333-444455556666';
    await request(h.app).get(`${path}/start?rid=${rid}`);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await request(h.app).get(`${path}/0?rid=${rid}`)).status).toBe(200);
    const tooLong = await waitFor(
      async () => (await results(hb.id)).find((r) => r.reason === 'run_too_long'),
      10_000,
      'the long run',
    );
    const end = await h.prisma.heartbeatPing.findFirstOrThrow({ where: { monitorId: hb.id, rid, kind: 'success' } });
    expect(tooLong.slot).toEqual(end.at);
    expect(end.durationMs).toBeGreaterThanOrEqual(1200);
  });
});
