import { z } from 'zod';

/**
 * One escalation queue for every region: a ladder step pages people, it probes nothing, so any region's worker may
 * run it. Jobs are delayed until their step comes due.
 */
export const ESCALATION_QUEUE = 'escalations';
export const ESCALATION_JOB_NAME = 'escalation-step';

/** Bounds the policy validator enforces, repeated here so the payload schema refuses nonsense at the boundary. */
export const ESCALATION_LIMITS = {
  stepsMax: 20,
  targetsMax: 10,
  repeatCountMax: 10,
  delayMinutesMax: 10_080,
  runbookMax: 4000,
  nameMax: 200,
} as const;

/** "Run step `position` of cycle `cycle` of this incident's ladder." The worker re-parses it at the boundary. */
export const escalationJobSchema = z
  .object({
    incidentId: z.uuid(),
    cycle: z.number().int().min(0).max(ESCALATION_LIMITS.repeatCountMax),
    position: z
      .number()
      .int()
      .min(0)
      .max(ESCALATION_LIMITS.stepsMax - 1),
  })
  .strict();
export type EscalationJob = z.infer<typeof escalationJobSchema>;

/**
 * Fixed per (incident, cycle, step position), so scheduling a ladder twice adds each job once while it is kept.
 * BullMQ refuses ':' in custom job ids.
 */
export function escalationJobId(job: EscalationJob): string {
  return `esc-${job.incidentId}-${job.cycle}-${job.position}`;
}

/** "Send this incident's pending notices of this kind" (acknowledged / resolved / handoff), on the same queue. */
export const ESCALATION_NOTICE_JOB_NAME = 'escalation-notice';
export const NOTICE_KINDS = ['acknowledged', 'resolved', 'handoff'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export const escalationNoticeJobSchema = z.object({ incidentId: z.uuid(), kind: z.enum(NOTICE_KINDS) }).strict();
export type EscalationNoticeJob = z.infer<typeof escalationNoticeJobSchema>;

/** Fixed per (incident, kind): the API and the sweeper asking for the same notices add one job. */
export function escalationNoticeJobId(job: EscalationNoticeJob): string {
  return `esc-notice-${job.incidentId}-${job.kind}`;
}
