import { DelayedError, type Job } from 'bullmq';
import { ESCALATION_NOTICE_JOB_NAME, escalationJobSchema, escalationNoticeJobSchema } from '@statusvane/shared';
import {
  runEscalationStep,
  sendIncidentNotices,
  type EscalationDeps,
  type NoticeOutcome,
  type StepOutcome,
} from '../escalation/engine.js';

/**
 * Thin processor: validates the payload at the boundary, then runs the step, or sends an incident's acknowledged /
 * resolved notices (job name `escalation-notice`). A step that is not due yet (a clock ahead of this one) or waits
 * for a maintenance window's end goes back to the delayed set until then, which is not a failed attempt.
 */
export function escalationProcessor(deps: EscalationDeps) {
  return async (job: Job, token?: string): Promise<StepOutcome | NoticeOutcome> => {
    if (job.name === ESCALATION_NOTICE_JOB_NAME)
      return sendIncidentNotices(deps, escalationNoticeJobSchema.parse(job.data));
    const payload = escalationJobSchema.parse(job.data);
    const outcome = await runEscalationStep(deps, payload);
    if (outcome.outcome === 'deferred' && token) {
      await job.moveToDelayed(outcome.until.getTime(), token);
      throw new DelayedError();
    }
    return outcome;
  };
}
