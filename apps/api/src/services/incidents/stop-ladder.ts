import {
  ladderState,
  policyInEffect,
  type EscalationScheduler,
  type Impact,
  type Logger,
  type PrismaClient,
} from '@statusvane/shared';
import { logFailure } from '../best-effort.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { incidentLookup } from './incident-record.js';

/** What the steps after an acknowledge or a resolve use (a subset of ApiDeps). */
export interface LadderDeps {
  prisma: PrismaClient;
  escalations?: EscalationScheduler | undefined;
  logger: Logger;
}

/**
 * Best effort, after an incident was acknowledged or resolved: removes the delayed step jobs of its current and
 * next cycle. Correctness does not depend on it (a step job re-reads the incident and does nothing unless it is
 * open); it keeps Redis from holding jobs for days. A failure is logged, for the same reason no more.
 */
export async function stopLadder(
  { prisma, escalations, logger }: LadderDeps,
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
  } catch (err) {
    logFailure(
      logger,
      'escalation step jobs not removed',
      { incidentId: incident.id },
      'none needed: each step job re-reads its incident and does nothing unless it is open',
    )(err);
  }
}

/**
 * Best effort, after an incident was acknowledged or resolved: asks the worker to send the notices the status
 * change wrote (one per target that was paged; the trigger `incidents_escalation_notices`). No notices (nothing was
 * paged): no job. A failure is logged: the escalation sweeper asks for every notice still unclaimed.
 */
export async function requestNotices(
  { prisma, escalations, logger }: LadderDeps,
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
  } catch (err) {
    logFailure(
      logger,
      `${kind} notices not requested`,
      { incidentId },
      'the escalation sweeper requests every notice still unclaimed',
    )(err);
  }
}

/**
 * After the commit of a resolve (POST /incidents/{id}/resolve, an update that resolves, a monitor delete): the ladder
 * stopped (it was open) and the resolved notices requested. The row as it now stands.
 */
export async function afterResolve(deps: LadderDeps, ctx: ServiceContext, before: { id: string; status: string }) {
  const row = await findOwn(deps.prisma, ctx, incidentLookup, before.id);
  if (before.status === 'open') await stopLadder(deps, { ...row, workspaceId: ctx.workspace.id }, ctx.now);
  if (before.status !== 'resolved') await requestNotices(deps, row.id, 'resolved');
  return row;
}

/** After the commit of monitor deletes: each incident they resolved goes through afterResolve, as a manual resolve. */
export async function afterMonitorsRemoved(
  deps: LadderDeps,
  ctx: ServiceContext,
  resolved: ReadonlyArray<{ id: string; status: string }>,
): Promise<void> {
  for (const incident of resolved) await afterResolve(deps, ctx, incident);
}
