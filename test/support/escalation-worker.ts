import { Worker, type Job } from 'bullmq';
import { ESCALATION_QUEUE, createWorkerRedis } from '@statusvane/shared';
import type { EscalationDeps } from '../../apps/worker/src/escalation/engine.js';
import { escalationProcessor } from '../../apps/worker/src/processors/escalation.processor.js';
import type { Harness } from './harness.js';

/**
 * A real escalation worker (step and notice jobs) on the harness's queue prefix, as apps/worker/src/main.ts runs
 * it. `completed` lists every finished job with what it returned, in order.
 */
export function startEscalationWorker(h: Harness, deps: EscalationDeps) {
  const completed: Array<{ id: string; outcome: unknown }> = [];
  const connection = createWorkerRedis(h.config.redis);
  connection.on('error', () => undefined);
  const worker = new Worker(ESCALATION_QUEUE, escalationProcessor(deps), {
    connection,
    prefix: h.queuePrefix,
    concurrency: 10,
  });
  worker.on('completed', (job: Job, outcome: unknown) => completed.push({ id: job.id!, outcome }));
  return {
    completed,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
