import { NotFoundError, type Prisma } from '@statusvane/shared';

/**
 * Locks one of the caller's live policies for the rest of the transaction (404 when it is gone meanwhile). The lock
 * also holds back an incident opening on it (its pinning takes a key-share lock on the policy row), so such an
 * incident pins the policy wholly before or after the change; and a monitor PATCH that assigns it waits too.
 */
export async function lockPolicy(
  tx: Prisma.TransactionClient,
  ctx: { workspace: { id: string } },
  id: string,
): Promise<{ pinned: number }> {
  const locked = await tx.$queryRaw<unknown[]>`
    SELECT 1 FROM escalation_policies
     WHERE id = ${id}::uuid AND "workspaceId" = ${ctx.workspace.id}::uuid AND "archivedAt" IS NULL FOR UPDATE`;
  if (locked.length === 0) throw new NotFoundError('escalation policy', id);
  return { pinned: await tx.incident.count({ where: { escalationPolicyId: id } }) };
}

/**
 * Keeps the ladder that incidents have pinned (docs/adr/0010: a pinned ladder never changes under an incident): an
 * archived copy of the policy takes over its current steps, targets and delivery history, and every incident
 * pinned to the policy is pinned to the copy instead. The policy itself is then free to get new steps.
 */
export async function archiveLadder(
  tx: Prisma.TransactionClient,
  policy: { id: string; workspaceId: string; name: string; repeatCount: number; silent: boolean; runbook: string },
  createdAt: Date,
  now: Date,
): Promise<void> {
  const copy = await tx.escalationPolicy.create({
    data: {
      workspaceId: policy.workspaceId,
      name: policy.name,
      repeatCount: policy.repeatCount,
      silent: policy.silent,
      runbook: policy.runbook,
      createdAt,
      archivedAt: now,
    },
    select: { id: true },
  });
  await tx.escalationStep.updateMany({ where: { policyId: policy.id }, data: { policyId: copy.id } });
  await tx.incident.updateMany({ where: { escalationPolicyId: policy.id }, data: { escalationPolicyId: copy.id } });
}
