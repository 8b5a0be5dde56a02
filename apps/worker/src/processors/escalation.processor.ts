import { DelayedError, type Job } from 'bullmq';
import { escalationJobSchema } from '@statusvane/shared';
import { runEscalationStep, type EscalationDeps, type StepOutcome } from '../escalation/engine.js';

/**
 * Thin processor: validates the payload at the boundary, then runs the step. A step that is not due yet (a clock
 * ahead of this one) or waits for a maintenance window's end goes back to the delayed set until then, which is not
 * a failed attempt.
 */
export function escalationProcessor(deps: EscalationDeps) {
  return async (job: Job, token?: string): Promise<StepOutcome> => {
    const payload = escalationJobSchema.parse(job.data);
    const outcome = await runEscalationStep(deps, payload);
    if (outcome.outcome === 'deferred' && token) {
      await job.moveToDelayed(outcome.until.getTime(), token);
      throw new DelayedError();
    }
    return outcome;
  };
}
