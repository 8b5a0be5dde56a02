import type { Prisma, PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { lockPolicy } from './lock-policy.js';
import { toEscalationPolicyRecord, policyLookup } from './policy-record.js';
import { findOwn } from '../records.js';

/**
 * DELETE /escalation-policies/{id} (managers): monitors that used it fall back to the workspace default (or to none,
 * when it was the default). A policy that incidents have pinned is archived instead of removed: those incidents keep
 * their ladder and their delivery history, and it is never listed, assigned or pinned again.
 */
export async function deleteEscalationPolicy(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'escalationPolicies:manage');
  const policy = await findOwn(prisma, ctx, policyLookup, id);
  await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'escalation_policy', policy.id); // If-Match, and the row locked
    const before = toEscalationPolicyRecord(await findOwn(tx, ctx, policyLookup, policy.id));
    await deletePolicyInTx(tx, ctx, policy.id);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'escalation_policy',
      resourceId: policy.id,
      action: 'deleted',
      changes: changesBetween(before, null),
    });
  });
}

/** The writes of a delete, in the caller's transaction (the policy row locked first). Shared with config/apply. */
export async function deletePolicyInTx(
  tx: Prisma.TransactionClient,
  ctx: Pick<ServiceContext, 'workspace' | 'now'>,
  id: string,
): Promise<void> {
  const { pinned } = await lockPolicy(tx, ctx, id);
  // The monitors that used it show `escalationPolicyId: null` from now on: a change of theirs, so a new version.
  await tx.monitor.updateMany({
    where: { escalationPolicyId: id, workspaceId: ctx.workspace.id },
    data: { escalationPolicyId: null, version: { increment: 1 } },
  });
  if (pinned === 0) {
    // The workspace default lets go of it by its foreign key (ON DELETE SET NULL).
    await tx.escalationPolicy.delete({ where: { id } });
    return;
  }
  await tx.workspace.updateMany({
    where: { defaultEscalationPolicyId: id },
    data: { defaultEscalationPolicyId: null },
  });
  // Archived: it keeps its pinned incidents' ladder and history, and frees its ref for a new managed policy.
  await tx.escalationPolicy.update({ where: { id }, data: { archivedAt: ctx.now, ref: null } });
}
