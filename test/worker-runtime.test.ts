// The test harness runs the worker as apps/worker/src/main.ts does (createWorkerRuntime): the same lock settings,
// metrics and escalation worker, so an incident opened by a check pages through the runtime's own escalation worker.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createPolicy } from '../apps/api/src/admin/policy-commands.js';
import { makeHarness, makeWorkspace, bearer, type Harness } from './support/harness.js';
import { startTarget, type Target } from './support/targets.js';
import { startRuntime, startWorker, waitFor } from './support/worker-harness.js';

let h: Harness;
let target: Target;
let w: ReturnType<typeof startWorker>;
beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.1/32', JOB_LOCK_MS: '4000', WORKER_CONCURRENCY: '7' });
  target = await startTarget();
  w = startWorker(h);
});
afterAll(async () => {
  await w.close();
  await target.close();
  await h.close();
});

describe('createWorkerRuntime in the test harness', () => {
  it('takes concurrency and the stalled-job lock from the config', () => {
    expect(w.worker.opts).toMatchObject({ concurrency: 7, lockDuration: 4000, stalledInterval: 4000 });
    expect(w.runtime.housekeeping).toBeNull();
  });

  it('an incident opened by a check pages its policy through the runtime`s escalation worker; the check is in its metrics', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await createPolicy(
      h.prisma,
      {
        workspace: ws.id,
        default: true,
        json: JSON.stringify({
          name: 'on call',
          steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: target.url(`/hooks/${ws.id}`) }] }],
        }),
      },
      { guard: h.deps.guard, encryption: h.config.encryption.current },
    );
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ name: 'API', target: target.url('/status/503'), openThreshold: 1 });
    expect(res.status).toBe(201);

    const page = await waitFor(
      async () => target.requests.find((r) => r.path === `/hooks/${ws.id}`),
      10_000,
      'the webhook page',
    );
    const [incident] = await h.prisma.incident.findMany({ where: { monitorId: res.body.data.id } });
    expect(JSON.parse(page.body)).toMatchObject({ type: 'incident.escalation', incident: { id: incident!.id } });
    const checks = await w.runtime.metrics.registry.getSingleMetric('statusvane_checks_total')!.get();
    expect(checks.values).toContainEqual(
      expect.objectContaining({ labels: expect.objectContaining({ region: 'local', result: 'down' }) }),
    );
  });

  it('runs every part of a worker process by default, each on its queue under the deployment prefix', async () => {
    const all = startRuntime(h, {
      region: 'elsewhere',
      parts: { subscribers: true, webhooks: true },
      // No sweep or dispatch: they would read every workspace of the shared test database.
      timing: { subscriberSweepMs: false, webhookDispatchMs: false },
    });
    const { checkWorker, escalationWorker, subscriberWorker, webhookWorker } = all.runtime;
    const workers = [checkWorker!, escalationWorker!, subscriberWorker!, webhookWorker!];
    try {
      expect(workers.map((x) => x.name)).toEqual(['checks-elsewhere', 'escalations', 'status-subscribers', 'webhooks']);
      expect(workers.map((x) => x.opts.prefix)).toEqual(Array(4).fill(h.queuePrefix));
      await Promise.all(workers.map((x) => x.waitUntilReady()));
      expect(workers.map((x) => x.isRunning())).toEqual([true, true, true, true]);
    } finally {
      await all.close();
    }
    // close() stops every one of them.
    expect(workers.map((x) => x.isRunning())).toEqual([false, false, false, false]);
  });
});
