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
      targets: {
        orderBy: { position: 'asc' },
        select: {
          id: true,
          position: true,
          channel: true,
          display: true,
          targetEnc: true,
          encKeyId: true,
          legacyTarget: true,
        },
      },
    },
  },
} as const;

export type PolicyInEffect = NonNullable<Awaited<ReturnType<typeof findPolicy>>>;

function findPolicy(prisma: Pick<PrismaClient, 'escalationPolicy'>, workspaceId: string, policyId: string) {
  // Scoped by workspace: a policy of another workspace never applies, whatever a row points at.
  return prisma.escalationPolicy.findFirst({ where: { id: policyId, workspaceId }, select: policySelect });
}

/**
 * The policy in effect for an incident: the one pinned to it when it opened (the monitor's own, else the workspace
 * default, else none; the insert trigger `incidents_pin_escalation_policy` decides, see
 * docs/adr/0010-escalation-policy-pinning.md). Assigning policies later does not change a running ladder, so the
 * engine, the record and the sweeper all see the same steps for the incident's whole life.
 */
export async function policyInEffect(
  prisma: Pick<PrismaClient, 'escalationPolicy'>,
  incident: { workspaceId: string; escalationPolicyId: string | null },
): Promise<PolicyInEffect | null> {
  return incident.escalationPolicyId ? findPolicy(prisma, incident.workspaceId, incident.escalationPolicyId) : null;
}
