import {
  displayTarget,
  ladderState,
  maintenanceUntilByComponent,
  policyInEffect,
  type Impact,
  type LadderState,
  type PolicyInEffect,
  type PrismaClient,
} from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { findOwnIncident } from './find-incident.js';
import type { IncidentRow } from './incident-record.js';

export interface EscalationDeliveryRecord {
  channel: 'webhook' | 'slack' | 'email';
  /** Webhook and Slack URLs are credentials: shown as `scheme://host/…`. Email addresses in full. */
  target: string;
  status: 'pending' | 'sent' | 'failed' | 'skipped';
  sentAt: string | null;
}

export interface EscalationStateRecord {
  incidentId: string;
  status: 'open' | 'acknowledged' | 'resolved';
  acknowledgedAt: string | null;
  resolvedAt: string | null;
  escalating: boolean;
  elapsedMinutes: number;
  policy: { id: string; name: string; repeatCount: number; silent: boolean; runbook: string } | null;
  steps: Array<{
    stepId: string;
    position: number;
    delayMinutes: number;
    minImpact: Impact;
    due: boolean;
    fired: boolean;
    firedAt: string | null;
    deliveries: EscalationDeliveryRecord[];
  }>;
  note: string | null;
}

/** Says what a reader would otherwise have to work out, most important first; null when the ladder is simply running. */
function noteFor(incident: IncidentRow, policy: PolicyInEffect | null, state: LadderState, maintenanceUntil: Date | null): string | null {
  if (!policy) {
    return incident.monitorId
      ? 'No escalation policy applies: the monitor has none and the workspace has no default policy.'
      : 'No escalation policy applies: the workspace has no default policy.';
  }
  if (incident.status === 'resolved') return `Resolved at ${incident.resolvedAt!.toISOString()}: the ladder has stopped.`;
  if (incident.status === 'acknowledged') return `Acknowledged at ${incident.acknowledgedAt!.toISOString()}: the ladder has stopped.`;
  if (state.nothingApplies) return `No step applies to a ${incident.impact} incident: every step's minImpact is higher, so nothing pages.`;
  if (state.exhausted) return `The ladder has run all ${policy.repeatCount + 1} cycle(s): nothing more will page.`;
  if (maintenanceUntil) return `The monitor is in maintenance until ${maintenanceUntil.toISOString()}: steps that come due wait until it ends.`;
  if (policy.silent) return 'The policy is silent: steps fire and record every delivery as skipped; nobody is paged.';
  return null;
}

/**
 * GET /incidents/{id}/escalation: the policy in effect (the monitor's own, else the workspace default), each step
 * with `due` / `fired` / `firedAt` from the pure ladder rules, and its deliveries over every cycle (oldest cycle
 * first, targets in policy order).
 */
export async function getIncidentEscalation(
  prisma: PrismaClient,
  { ctx, id, now = new Date() }: { ctx: RequestContext; id: string; now?: Date },
): Promise<EscalationStateRecord> {
  const incident = await findOwnIncident(prisma, ctx, id);
  const ref = { workspaceId: ctx.workspace.id, monitorId: incident.monitorId };
  const policy = await policyInEffect(prisma, ref);
  const rows = policy
    ? await prisma.escalationDelivery.findMany({
        where: { incidentId: incident.id, stepId: { in: policy.steps.map((s) => s.id) } },
        select: { stepId: true, cycle: true, channel: true, target: true, status: true, sentAt: true, createdAt: true },
        orderBy: [{ cycle: 'asc' }, { targetRef: { position: 'asc' } }, { createdAt: 'asc' }],
      })
    : [];
  const ladderIncident = { ...incident, impact: incident.impact as Impact };
  const state = ladderState(policy, ladderIncident, rows, now);

  let maintenanceUntil: Date | null = null;
  if (policy && incident.status === 'open' && incident.monitorId) {
    const monitor = await prisma.monitor.findFirst({ where: { id: incident.monitorId, workspaceId: ctx.workspace.id }, select: { componentId: true } });
    if (monitor) maintenanceUntil = (await maintenanceUntilByComponent(prisma, ctx.workspace.id, [monitor.componentId], now)).get(monitor.componentId) ?? null;
  }

  return {
    incidentId: incident.id,
    status: incident.status,
    acknowledgedAt: incident.acknowledgedAt?.toISOString() ?? null,
    resolvedAt: incident.resolvedAt?.toISOString() ?? null,
    escalating: state.escalating,
    elapsedMinutes: state.elapsedMinutes,
    policy: policy ? { id: policy.id, name: policy.name, repeatCount: policy.repeatCount, silent: policy.silent, runbook: policy.runbook } : null,
    steps: state.steps.map((s) => ({
      stepId: s.stepId,
      position: s.position,
      delayMinutes: s.delayMinutes,
      minImpact: s.minImpact,
      due: s.due,
      fired: s.fired,
      firedAt: s.firedAt?.toISOString() ?? null,
      deliveries: rows
        .filter((d) => d.stepId === s.stepId)
        .map((d) => ({ channel: d.channel, target: displayTarget(d.channel, d.target), status: d.status, sentAt: d.sentAt?.toISOString() ?? null })),
    })),
    note: noteFor(incident, policy, state, maintenanceUntil),
  };
}
