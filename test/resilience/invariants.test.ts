/**
 * The invariants the resilience suites assert after breaking things (support/invariants.ts) must be able to fail:
 * a state built by the real code passes, and each kind of damage a bug could do is reported under its name. Every
 * case works in a workspace of its own and the checks are scoped to it, so other suites sharing the database are
 * neither seen nor disturbed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createPolicy } from '../../apps/api/src/admin/policy-commands.js';
import { storeMissedSlots } from '../../apps/worker/src/checks/missed-slots.js';
import { storeCheckResults } from '../../apps/worker/src/checks/store-result.js';
import type { ProbeResult } from '../../apps/worker/src/probes/types.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from '../support/harness.js';
import { brokenInvariants, storedState } from './support/invariants.js';
import { deleteKeys } from './support/processes.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h?.close();
  await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}:*`]).catch(() => undefined);
});

const result = (outcome: ProbeResult['outcome']): ProbeResult => ({
  outcome,
  reason: outcome === 'up' ? null : outcome === 'down' ? 'connection_refused' : 'slow: 900ms > 500ms',
  responseMs: 12,
  statusCode: outcome === 'down' ? null : 200,
  phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 10 },
});

/** A workspace with one monitor made by the API, and a way to store results for it through the worker's code. */
async function setup() {
  const w = await makeWorkspace(h.prisma);
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .set('Idempotency-Key', randomUUID())
    .send({ name: 'inv', target: 'https://93.184.215.14/', openThreshold: 2, resolveThreshold: 1 });
  expect(res.status).toBe(201);
  const monitor = {
    ...(await h.prisma.monitor.findUniqueOrThrow({ where: { id: res.body.data.id } })),
    regions: ['local'],
  };
  let slot = Date.UTC(2031, 0, 1);
  /** One transaction per call, results applied by slot: `later` lists are stored in reverse order on purpose. */
  const store = (...outcomes: Array<ProbeResult['outcome']>) => {
    const inputs = outcomes.map((o) => {
      slot += 60_000;
      return {
        monitor,
        region: 'local',
        slot: new Date(slot),
        checkedAt: new Date(slot + 5),
        result: result(o),
      };
    });
    return storeCheckResults(h.prisma, inputs.reverse());
  };
  const check = () => brokenInvariants(h.prisma, { workspaceIds: [w.ws.id] });
  return { w, monitor, store, check };
}

describe('brokenInvariants', () => {
  it('finds nothing in a state made by the real code: results, flap, incidents opened, acknowledged and resolved, safe retries', async () => {
    const { w, monitor, store, check } = await setup();
    expect(await check()).toEqual({});
    // One transaction with two results given out of slot order: applied by slot, so the last is `down`.
    await store('up', 'down');
    await store('down'); // opens (openThreshold 2)
    await store('degraded', 'down', 'down'); // passes resolve (resolveThreshold 1), then it opens again
    const open = await h.prisma.incident.findMany({ where: { monitorId: monitor.id } });
    expect(open.map((i) => i.status).sort()).toEqual(['open', 'resolved']);
    expect(await check()).toEqual({});

    const current = open.find((i) => i.status === 'open')!;
    expect(
      (await request(h.app).post(`/api/v1/incidents/${current.id}/acknowledge`).set(bearer(w.tokens.owner))).status,
    ).toBe(200);
    expect(await check()).toEqual({});
    // An API resolve resets the flap state: allowed, until the next result counts again.
    expect(
      (await request(h.app).post(`/api/v1/incidents/${current.id}/resolve`).set(bearer(w.tokens.owner))).status,
    ).toBe(200);
    expect(await h.prisma.monitorRegionState.count({ where: { monitorId: monitor.id } })).toBe(0);
    expect(await check()).toEqual({});
    await store('down');
    expect(await check()).toEqual({});
  });

  it('takes a slot recorded as missed (checks behind) for no data: no rollup, flap state or status to match', async () => {
    const { monitor, store, check } = await setup();
    await store('up', 'down');
    // Recorded after the checks, in a transaction of its own, as a late job records the slots BullMQ skipped.
    const slot = new Date(Date.UTC(2031, 0, 2));
    const missed = { monitorId: monitor.id, region: 'local', slot, recordedAt: slot, reason: 'checks_behind: test' };
    expect(await storeMissedSlots(h.prisma, [missed])).toEqual(['recorded']);
    expect(await check()).toEqual({});
    const state = await storedState(h.prisma);
    expect(state.rollupMismatches.filter((m) => m.monitorId === monitor.id)).toEqual([]);
  });

  it('reports rollups that do not count the stored results', async () => {
    const { monitor, store, check } = await setup();
    await store('down', 'up');
    await h.prisma
      .$executeRaw`UPDATE check_rollups_daily SET "downCount" = "downCount" + 1 WHERE "monitorId" = ${monitor.id}::uuid`;
    expect(await check()).toEqual({
      rollupMismatches: [expect.objectContaining({ monitorId: monitor.id, down: 1, dailyDown: 2 })],
    });
  });

  it('reports flap counters, status or lastCheckedAt that disagree with the results', async () => {
    const { monitor, store, check } = await setup();
    await store('up', 'up');
    const where = { monitorId_region: { monitorId: monitor.id, region: 'local' } };
    // A result counted twice.
    await h.prisma.monitorRegionState.update({ where, data: { consecutivePasses: 3 } });
    expect(await check()).toEqual({
      flapStateMismatches: [
        { monitorId: monitor.id, problems: ['region local: 3 counted passing results but 2 stored'] },
      ],
    });
    // Both counters moved; a last counted result that is not stored.
    await h.prisma.monitorRegionState.update({ where, data: { consecutiveFailures: 1, consecutivePasses: 2 } });
    expect(await check()).toEqual({
      flapStateMismatches: [{ monitorId: monitor.id, problems: ['region local: counters 1 failing / 2 passing'] }],
    });
    await h.prisma.monitorRegionState.update({
      where,
      data: { consecutiveFailures: 0, lastCountedAt: new Date(Date.UTC(2020, 0, 1)) },
    });
    expect(await check()).toEqual({
      flapStateMismatches: [
        {
          monitorId: monitor.id,
          problems: [
            expect.stringMatching(
              /^region local: the last counted result \(2020-01-01.*\) is not a stored passing result$/,
            ),
          ],
        },
      ],
    });
    // A result stored without its monitor update.
    const lastCounted = await h.prisma.checkResult.findFirstOrThrow({
      where: { monitorId: monitor.id },
      orderBy: { checkedAt: 'desc' },
    });
    await h.prisma.monitorRegionState.update({ where, data: { lastCountedAt: lastCounted.checkedAt } });
    await h.prisma.checkResult.create({
      data: {
        monitorId: monitor.id,
        region: 'local',
        slot: new Date(Date.UTC(2032, 0, 1)),
        checkedAt: new Date(Date.UTC(2032, 0, 1)),
        outcome: 'down',
      },
    });
    const found = (await check()).flapStateMismatches as Array<{ problems: string[] }>;
    expect(found[0]!.problems).toEqual([
      'status up but the last result is down',
      expect.stringMatching(/^lastCheckedAt .* but the last result was checked at 2032-01-01T00:00:00.000Z$/),
    ]);
  });

  it('reports incidents whose times disagree with their status', async () => {
    const { w, monitor, check } = await setup();
    const data = { workspaceId: w.ws.id, monitorId: monitor.id, title: 'x', source: 'monitor' as const };
    // openMonitorId follows the status (a CHECK constraint), so these are the disagreements a writer can still make.
    const resolved = await h.prisma.incident.create({ data: { ...data, status: 'resolved', resolvedAt: null } });
    const acked = await h.prisma.incident.create({
      data: { ...data, openMonitorId: monitor.id, status: 'acknowledged', acknowledgedAt: null },
    });
    const found = await check();
    expect(new Set(found.incidentStateMismatches)).toEqual(
      new Set([
        { id: resolved.id, status: 'resolved', problem: 'resolvedAt does not match the status' },
        { id: acked.id, status: 'acknowledged', problem: 'acknowledged without acknowledgedAt' },
      ]),
    );
  });

  it('reports a component left without its monitor', async () => {
    const { w, check } = await setup();
    const c = await h.prisma.component.create({ data: { workspaceId: w.ws.id, name: 'half a monitor' } });
    expect(await check()).toEqual({ orphanComponents: [{ id: c.id, name: 'half a monitor' }] });
  });

  it("reports a row that points at another workspace's row, seen from either workspace", async () => {
    const one = await setup();
    const two = await setup();
    const window = await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: one.w.ws.id,
        title: 'x',
        startsAt: new Date(),
        endsAt: new Date(Date.now() + 60_000),
        components: { create: [{ componentId: two.monitor.componentId }] },
      },
    });
    const expected = {
      crossWorkspaceLinks: [
        { link: 'maintenance -> component', id: window.id, workspaceId: one.w.ws.id, otherWorkspaceId: two.w.ws.id },
      ],
    };
    expect(await one.check()).toEqual(expected);
    expect(await two.check()).toEqual(expected);
  });

  it('reports a safe-retry claim left in flight past the takeover time, and a stored non-2xx answer', async () => {
    const { w, check } = await setup();
    const base = {
      workspaceId: w.ws.id,
      principal: 'token:x',
      method: 'POST',
      path: '/api/v1/monitors',
      requestHash: '0'.repeat(64),
      expiresAt: new Date(Date.now() + 86_400_000),
    };
    await h.prisma.idempotencyRecord.create({ data: { ...base, key: 'fresh', createdAt: new Date() } });
    expect(await check()).toEqual({});
    await h.prisma.idempotencyRecord.create({
      data: { ...base, key: 'stale', createdAt: new Date(Date.now() - 61_000) },
    });
    await h.prisma.idempotencyRecord.create({
      data: { ...base, key: 'failed', responseStatus: 500, responseBody: {} },
    });
    expect(await check()).toEqual({
      idempotencyRecords: expect.arrayContaining([
        expect.objectContaining({ key: 'stale', problem: 'claim in flight past the takeover time' }),
        expect.objectContaining({ key: 'failed', problem: 'non-2xx answer stored' }),
      ]),
    });
  });

  it('reports a page marked sent without a time', async () => {
    const { w, monitor, check } = await setup();
    const json = JSON.stringify({
      name: 'p',
      steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'oncall@example.test' }] }],
    });
    const policy = await createPolicy(
      h.prisma,
      { workspace: w.ws.id, json },
      { guard: h.deps.guard, encryption: h.config.encryption.current },
    );
    const step = await h.prisma.escalationStep.findFirstOrThrow({
      where: { policyId: policy.id },
      include: { targets: true },
    });
    const incident = await h.prisma.incident.create({
      data: { workspaceId: w.ws.id, monitorId: monitor.id, openMonitorId: monitor.id, title: 'x' },
    });
    const delivery = await h.prisma.escalationDelivery.create({
      data: {
        incidentId: incident.id,
        stepId: step.id,
        targetId: step.targets[0]!.id,
        channel: 'email',
        target: 'oncall@example.test',
        status: 'sent',
      },
    });
    expect(await check()).toEqual({ deliveryStateMismatches: [{ id: delivery.id, status: 'sent' }] });
  });
});
