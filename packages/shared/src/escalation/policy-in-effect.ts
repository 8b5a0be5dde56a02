import type { PrismaClient } from '../db/prisma.js';

const policySelect = {
  id: true,
  workspaceId: true,
  name: true,
  repeatCount: true,
  silent: true,
  runbook: true,
  steps: {
    orderBy: { position: 'asc' },
    select: {
      id: true,
      position: true,
      delayMinutes: true,
      minImpact: true,
      targets: { orderBy: { position: 'asc' }, select: { id: true, position: true, channel: true, target: true } },
    },
  },
} as const;

export type PolicyInEffect = NonNullable<Awaited<ReturnType<typeof findPolicy>>>;

function findPolicy(prisma: Pick<PrismaClient, 'escalationPolicy'>, workspaceId: string, policyId: string) {
  // Scoped by workspace: a policy of another workspace never applies, whatever a row points at.
  return prisma.escalationPolicy.findFirst({ where: { id: policyId, workspaceId }, select: policySelect });
}

/**
 * The policy in effect for an incident: its monitor's own, else the workspace default, else null. Read when it is
 * needed (a step job, a GET), so assigning a policy applies from then on.
 */
export async function policyInEffect(
  prisma: Pick<PrismaClient, 'escalationPolicy' | 'monitor' | 'workspace'>,
  incident: { workspaceId: string; monitorId: string | null },
): Promise<PolicyInEffect | null> {
  if (incident.monitorId) {
    const monitor = await prisma.monitor.findFirst({
      where: { id: incident.monitorId, workspaceId: incident.workspaceId },
      select: { escalationPolicyId: true },
    });
    if (monitor?.escalationPolicyId) {
      const own = await findPolicy(prisma, incident.workspaceId, monitor.escalationPolicyId);
      if (own) return own;
    }
  }
  const ws = await prisma.workspace.findUnique({ where: { id: incident.workspaceId }, select: { defaultEscalationPolicyId: true } });
  return ws?.defaultEscalationPolicyId ? findPolicy(prisma, incident.workspaceId, ws.defaultEscalationPolicyId) : null;
}
