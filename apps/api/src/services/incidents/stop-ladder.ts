import {
  ladderState,
  policyInEffect,
  type EscalationScheduler,
  type Impact,
  type PrismaClient,
} from '@statusvane/shared';

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
