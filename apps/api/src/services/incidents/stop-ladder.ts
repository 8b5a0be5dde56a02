import {
  ladderState,
  policyInEffect,
  type EscalationScheduler,
  type Impact,
  type PrismaClient,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { incidentLookup } from './incident-record.js';

/**
 * Best effort, after an incident was acknowledged or resolved: removes the delayed step jobs of its current and
 * next cycle. Correctness does not depend on it (a step job re-reads the incident and does nothing unless it is
 * open); it keeps Redis from holding jobs for days. A Redis failure is ignored for the same reason.
 */
export async function stopLadder(
  prisma: PrismaClient,
  escalations: EscalationScheduler | undefined,
  incident: {
    id: string;
    workspaceId: string;
    escalationPolicyId: string | null;
    impact: string;
    startedAt: Date;
    status: 'open' | 'acknowledged' | 'resolved';
    acknowledgedAt: Date | null;
    resolvedAt: Date | null;
  },
  now: Date,
): Promise<void> {
  if (!escalations) return;
  try {
    const policy = await policyInEffect(prisma, incident);
    if (!policy) return;
    const deliveries = await prisma.escalationDelivery.findMany({
      where: { incidentId: incident.id },
      select: { stepId: true, cycle: true, createdAt: true },
    });
    // Judged as if still open, to find the cycle whose jobs may be waiting.
    const state = ladderState(
      policy,
      { ...incident, impact: incident.impact as Impact, status: 'open' },
      deliveries,
      now,
    );
    await escalations.cancel(
      incident.id,
      [state.cycle, state.cycle + 1],
      policy.steps.map((s) => s.position),
    );
  } catch {
    // Ignored: see above.
  }
}

/**
 * Best effort, after an incident was acknowledged or resolved: asks the worker to send the notices the status
 * change wrote (one per target that was paged; the trigger `incidents_escalation_notices`). No notices (nothing was
 * paged): no job. A Redis failure is ignored: the escalation sweeper asks for every notice still unclaimed.
 */
export async function requestNotices(
  prisma: PrismaClient,
  escalations: EscalationScheduler | undefined,
  incidentId: string,
  kind: 'acknowledged' | 'resolved',
): Promise<void> {
  if (!escalations) return;
  try {
    const pending = await prisma.escalationNotice.findFirst({
      where: { incidentId, kind, status: 'pending', claimedAt: null },
      select: { id: true },
    });
    if (pending) await escalations.sendNotices({ incidentId, kind });
  } catch {
    // Ignored: see above.
  }
}

/**
 * After the commit of a resolve (POST /incidents/{id}/resolve, an update that resolves, a monitor delete): the ladder
 * stopped (it was open) and the resolved notices requested. The row as it now stands.
 */
export async function afterResolve(
  { prisma, escalations }: { prisma: PrismaClient; escalations?: EscalationScheduler | undefined },
  ctx: ServiceContext,
  before: { id: string; status: string },
) {
  const row = await findOwn(prisma, ctx, incidentLookup, before.id);
  if (before.status === 'open')
    await stopLadder(prisma, escalations, { ...row, workspaceId: ctx.workspace.id }, ctx.now);
  if (before.status !== 'resolved') await requestNotices(prisma, escalations, row.id, 'resolved');
  return row;
}

/** After the commit of monitor deletes: each incident they resolved goes through afterResolve, as a manual resolve. */
export async function afterMonitorsRemoved(
  deps: { prisma: PrismaClient; escalations?: EscalationScheduler | undefined },
  ctx: ServiceContext,
  resolved: ReadonlyArray<{ id: string; status: string }>,
): Promise<void> {
  for (const incident of resolved) await afterResolve(deps, ctx, incident);
}
