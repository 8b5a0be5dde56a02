import {
  ladderState,
  maintenanceUntilByComponent,
  orderedSteps,
  policyInEffect,
  shownTarget,
  ESCALATION_CHANNELS,
  type Impact,
  type LadderState,
  type PolicyInEffect,
  type PrismaClient,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { INCIDENT_IMPACTS, INCIDENT_STATUSES, type IncidentRow, incidentLookup } from './incident-record.js';
import { dateTime, z } from '../../schemas/zod.js';
import { findOwn } from '../records.js';

const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;

const deliverySchema = z
  .object({
    channel: z.enum(ESCALATION_CHANNELS),
    target: z.string().openapi({
      description:
        'Never a secret. Email: the address. URL channels (webhook, slack, teams, discord, ntfy): only ' +
        '`scheme://host[:port]/…`, since the full URL is a credential. pagerduty and opsgenie: `routing key …abcd` / ' +
        '`API key …abcd` (the last four characters). telegram: `chat <chatId>`.',
    }),
    scheduleId: z.uuid().nullable().openapi({
      description: 'A `schedule` target: the schedule whose on-call user (or fallback) this delivery paged.',
    }),
    userId: z.uuid().nullable().openapi({
      description:
        'A `schedule` or `user` target: the user paged; `channel` and `target` are then the contact method used.',
    }),
    status: z.enum(DELIVERY_STATUSES).openapi({
      description:
        '`skipped`: silent policy, a channel that is not configured, a user with no contact method ' +
        '(`no_contact_method`), or nobody on call (`nobody_on_call`, the fallback paged next).',
    }),
    sentAt: dateTime.nullable(),
    reason: z
      .string()
      .nullable()
      .openapi({
        description:
          'Beyond the spec: why the delivery failed or was skipped, as a code (`http_500`, `timeout`, `connection_refused`, ' +
          '`ssrf_blocked`, `smtp_550`, `worker_lost`, `silent policy`, `email not configured`, `no_contact_method`, ' +
          '`nobody_on_call`, `not_a_member`, ...). Null unless `status` is ' +
          '`failed` or `skipped`.',
      }),
  })
  .openapi('EscalationDelivery');

const escalationStepSchema = z
  .object({
    stepId: z.uuid(),
    position: z.number().int(),
    delayMinutes: z.number().int().openapi({
      description: "From the incident's start (or, in a repeat cycle, from the previous cycle's last step).",
    }),
    minImpact: z.enum(INCIDENT_IMPACTS),
    due: z.boolean().openapi({
      description:
        "The step's time has come in the current cycle and its `minImpact` is at most the incident's impact. Once the incident is " +
        'acknowledged or resolved, judged at that moment.',
    }),
    fired: z
      .boolean()
      .openapi({ description: 'The step has paged at least once (recorded its deliveries, whatever their status).' }),
    firedAt: dateTime.nullable().openapi({ description: 'When it last fired (the latest cycle in which it did).' }),
    deliveries: z.array(deliverySchema).openapi({ description: 'Every cycle, oldest first; targets in policy order.' }),
  })
  .openapi('EscalationStepState');

const escalationPolicySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    repeatCount: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'How many more times the ladder repeats after its last step.' }),
    silent: z.boolean(),
    runbook: z.string(),
  })
  .openapi('PinnedEscalationPolicy');

export const escalationStateSchema = z
  .object({
    incidentId: z.uuid(),
    status: z.enum(INCIDENT_STATUSES),
    acknowledgedAt: dateTime.nullable(),
    resolvedAt: dateTime.nullable(),
    escalating: z
      .boolean()
      .openapi({ description: 'Whether the ladder is still running (acknowledging or resolving stops it).' }),
    elapsedMinutes: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'Whole minutes since the incident started (until it was resolved).' }),
    policy: z.union([escalationPolicySchema, z.null()]).openapi({
      description:
        "The policy in effect, pinned when the incident opened: the monitor's own, else the workspace default, else null. " +
        'Assigning a policy later does not change the ladder of an incident already open.',
    }),
    steps: z
      .array(escalationStepSchema)
      .openapi({ description: 'One entry per ladder step; empty when no policy applies.' }),
    note: z.string().openapi({
      description:
        'What the ladder is doing, in one sentence: e.g. `Escalating: step 2 of 3 is due at <time>.`, `Acknowledged at <time>: ' +
        'the ladder has stopped.`, or that no policy applies.',
    }),
  })
  .openapi('EscalationState');
export type EscalationStateRecord = z.infer<typeof escalationStateSchema>;

const MINUTE = 60_000;

/** "step 2 of 3" (positions are 0-based, people count from 1). */
const stepName = (position: number, count: number) => `step ${position + 1} of ${count}`;

/** Says what the ladder is doing, most important first: never empty. */
function noteFor(
  incident: IncidentRow,
  policy: PolicyInEffect | null,
  state: LadderState,
  maintenanceUntil: Date | null,
): string {
  if (!policy) {
    return 'No escalation policy was in effect when this incident opened (the monitor had none and the workspace had no default), so nothing pages.';
  }
  if (incident.status === 'resolved')
    return `Resolved at ${incident.resolvedAt!.toISOString()}: the ladder has stopped.`;
  if (incident.status === 'acknowledged')
    return `Acknowledged at ${incident.acknowledgedAt!.toISOString()}: the ladder has stopped.`;
  if (state.nothingApplies)
    return `No step applies to a ${incident.impact} incident: every step's minImpact is higher, so nothing pages.`;
  if (state.exhausted) return `The ladder has run all ${policy.repeatCount + 1} cycle(s): nothing more will page.`;
  if (maintenanceUntil)
    return `The monitor is in maintenance until ${maintenanceUntil.toISOString()}: steps that come due wait until it ends.`;
  const silent = policy.silent
    ? 'Silent policy: steps fire and record every delivery as skipped; nobody is paged. '
    : '';
  const cycle = state.cycle > 0 ? ` (repeat ${state.cycle} of ${policy.repeatCount})` : '';
  const next = state.steps.find(
    (s) => s.applies && !s.firedInCurrentCycle && s.dueAt.getTime() === state.nextDueAt?.getTime(),
  );
  if (next && state.nextDueAt! > state.clock) {
    return `${silent}Escalating${cycle}: ${stepName(next.position, state.steps.length)} is due at ${state.nextDueAt!.toISOString()}.`;
  }
  if (next)
    return `${silent}Escalating${cycle}: ${stepName(next.position, state.steps.length)} came due at ${state.nextDueAt!.toISOString()} and is paging now.`;
  // Every step that applies has fired in this cycle; the last one does not apply, and its due time starts the next cycle.
  const last = orderedSteps(policy.steps).at(-1)!;
  const nextCycle = new Date(state.anchors[state.cycle]!.getTime() + last.delayMinutes * MINUTE);
  return `${silent}Escalating${cycle}: the next cycle starts at ${nextCycle.toISOString()}.`;
}

/**
 * GET /incidents/{id}/escalation: the policy pinned to the incident when it opened, each step with `due` / `fired`
 * / `firedAt` from the pure ladder rules, and its deliveries over every cycle (oldest cycle first, targets in
 * policy order). Every delivery of the incident is shown: a row of a step that is not in the pinned policy (only
 * possible for incidents paged before policies were pinned) is listed under the step at the same position.
 */
export async function getIncidentEscalation(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<EscalationStateRecord> {
  const { now } = ctx;
  const incident = await findOwn(prisma, ctx, incidentLookup, input.id);
  const policy = await policyInEffect(prisma, {
    workspaceId: ctx.workspace.id,
    escalationPolicyId: incident.escalationPolicyId,
  });
  const rows = policy
    ? await prisma.escalationDelivery.findMany({
        where: { incidentId: incident.id },
        select: {
          stepId: true,
          cycle: true,
          channel: true,
          target: true,
          scheduleId: true,
          userId: true,
          status: true,
          sentAt: true,
          reason: true,
          createdAt: true,
          step: { select: { position: true } },
        },
        orderBy: [{ cycle: 'asc' }, { targetRef: { position: 'asc' } }, { createdAt: 'asc' }],
      })
    : [];
  const ladderIncident = { ...incident, impact: incident.impact as Impact };
  const ownSteps = new Set(policy?.steps.map((s) => s.id));
  const ladderRows = rows.filter((d) => ownSteps.has(d.stepId));
  const state = ladderState(policy, ladderIncident, ladderRows, now);

  let maintenanceUntil: Date | null = null;
  if (policy && incident.status === 'open' && incident.monitorId) {
    const monitor = await prisma.monitor.findFirst({
      where: { id: incident.monitorId, workspaceId: ctx.workspace.id },
      select: { componentId: true },
    });
    if (monitor)
      maintenanceUntil =
        (await maintenanceUntilByComponent(prisma, ctx.workspace.id, [monitor.componentId], now)).get(
          monitor.componentId,
        ) ?? null;
  }

  // Which step of the record each row is listed under: its own, else (a foreign step) the one at its position.
  const lastPosition = state.steps.at(-1)?.position ?? 0;
  const listedUnder = (d: (typeof rows)[number]) =>
    ownSteps.has(d.stepId)
      ? d.stepId
      : (state.steps.find((s) => s.position === Math.min(d.step.position, lastPosition))?.stepId ?? null);

  return {
    incidentId: incident.id,
    status: incident.status,
    acknowledgedAt: incident.acknowledgedAt?.toISOString() ?? null,
    resolvedAt: incident.resolvedAt?.toISOString() ?? null,
    escalating: state.escalating,
    elapsedMinutes: state.elapsedMinutes,
    policy: policy
      ? {
          id: policy.id,
          name: policy.name,
          repeatCount: policy.repeatCount,
          silent: policy.silent,
          runbook: policy.runbook,
        }
      : null,
    steps: state.steps.map((s) => ({
      stepId: s.stepId,
      position: s.position,
      delayMinutes: s.delayMinutes,
      minImpact: s.minImpact,
      due: s.due,
      fired: s.fired,
      firedAt: s.firedAt?.toISOString() ?? null,
      deliveries: rows
        .filter((d) => listedUnder(d) === s.stepId)
        .map((d) => ({
          channel: d.channel,
          // Stored in its shown form already; redacting again is a no-op that keeps a stray full URL out.
          target: shownTarget(d.channel, d.target),
          scheduleId: d.scheduleId,
          userId: d.userId,
          status: d.status,
          sentAt: d.sentAt?.toISOString() ?? null,
          reason: d.status === 'failed' || d.status === 'skipped' ? d.reason : null,
        })),
    })),
    note: noteFor(incident, policy, state, maintenanceUntil),
  };
}
