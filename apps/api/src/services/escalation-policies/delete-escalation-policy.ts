import type { PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { lockPolicy } from './lock-policy.js';
import { findOwnPolicy, toEscalationPolicyRecord } from './policy-record.js';

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
  const policy = await findOwnPolicy(prisma, ctx, id);
  await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'escalation_policy', policy.id);
    const { pinned } = await lockPolicy(tx, ctx, policy.id);
    const before = toEscalationPolicyRecord(await findOwnPolicy(tx, ctx, policy.id));
    if (pinned === 0) {
      // Monitors and the workspace default let go of it by their foreign keys (ON DELETE SET NULL).
      await tx.escalationPolicy.delete({ where: { id: policy.id } });
    } else {
      await tx.monitor.updateMany({ where: { escalationPolicyId: policy.id }, data: { escalationPolicyId: null } });
      await tx.workspace.updateMany({
        where: { defaultEscalationPolicyId: policy.id },
        data: { defaultEscalationPolicyId: null },
      });
      await tx.escalationPolicy.update({ where: { id: policy.id }, data: { archivedAt: ctx.now } });
    }
    await recordAuditEvent(tx, ctx, {
      resourceType: 'escalation_policy',
      resourceId: policy.id,
      action: 'deleted',
      changes: changesBetween(before, null),
    });
  });
}
