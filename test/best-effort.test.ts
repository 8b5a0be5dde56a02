// Best-effort steps after a committed write (services/best-effort.ts): when Redis fails there, the write stands, the
// answer is the usual one, and the failure is one warning saying what failed, why, and what brings it back.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger, type CheckScheduler } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { SCHEDULES_RECONCILED } from '../apps/api/src/services/monitors/monitor-schedule.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

/** An app whose warnings are kept, and whose scheduler fails every Redis call after the write's own transaction. */
function appWithRedisFailingAfterCommit() {
  const warnings: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) warnings.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ level: 'warn', json: true, service: 'test', stream });
  const down = () => Promise.reject(new Error('Connection is closed.'));
  // The write's own scheduler call (in its transaction) goes through; every call after it fails, as when Redis goes
  // away between the commit and the follow-up.
  const scheduler = Object.create(h.deps.scheduler) as CheckScheduler;
  let inTransaction = true;
  scheduler.schedule = async (m) => {
    if (!inTransaction) return down();
    inTransaction = false;
    return h.deps.scheduler.schedule(m);
  };
  scheduler.isScheduled = down;
  scheduler.runNow = down;
  const app = createApp({ ...h.deps, scheduler, logger });
  return { app, warnings };
}

describe('a Redis failure after the commit', () => {
  it('POST /monitors: 201 and the monitor stored; the missed schedule and first check are logged with their recovery', async () => {
    const { app, warnings } = appWithRedisFailingAfterCommit();
    const res = await request(app)
      .post('/api/v1/monitors')
      .set(bearer(ws.tokens.owner))
      .send(makeMonitorInput({ name: uniq('m') }));
    expect(res.status).toBe(201);
    const monitorId = res.body.data.id as string;
    expect(await h.prisma.monitor.count({ where: { id: monitorId } })).toBe(1);
    // Both are tried side by side after the commit: in either order.
    expect(warnings).toHaveLength(2);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: 'warn',
          message: 'monitor created; schedules not confirmed',
          monitorId,
          error: 'Connection is closed.',
          recovery: SCHEDULES_RECONCILED,
        }),
        expect.objectContaining({
          message: 'monitor created; immediate check not queued',
          monitorId,
          error: 'Connection is closed.',
          recovery: 'the monitor is checked at its next scheduled slot',
        }),
      ]),
    );
  });

  it('DELETE /monitors/{id}: 204 and the monitor gone; nothing to write to Redis, so nothing to log', async () => {
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(ws.tokens.owner))
      .send(makeMonitorInput({ name: uniq('m') }));
    const monitorId = created.body.data.id as string;
    const { app, warnings } = appWithRedisFailingAfterCommit();
    const res = await request(app).delete(`/api/v1/monitors/${monitorId}`).set(bearer(ws.tokens.owner));
    expect(res.status).toBe(204);
    expect(await h.prisma.monitor.count({ where: { id: monitorId } })).toBe(0);
    // Its partitions' jobs read their members at run time (docs/adr/0020-partitioned-scheduling.md).
    expect(warnings).toEqual([]);
  });
});
