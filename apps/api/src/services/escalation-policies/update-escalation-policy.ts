import type { Config, PrismaClient, SsrfGuard } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { archiveLadder, lockPolicy } from './lock-policy.js';
import { assertTargetsAllowed, type UpdateEscalationPolicyInput } from './policy-input.js';
import {
  escalationPolicySelect,
  findOwnPolicy,
  toEscalationPolicyRecord,
  type EscalationPolicyRecord,
} from './policy-record.js';
import { stepsCreate } from './policy-steps.js';

/**
 * PATCH /escalation-policies/{id} (managers): the given fields in one transaction, the policy row locked. `steps`
 * replaces every step; incidents already pinned to the policy keep paging with the ladder they opened with (an
 * archived copy takes it over), so the new steps apply from the next incident. `isDefault` moves the workspace's
 * default to this policy (true) or leaves the workspace without one (false, when this policy was it).
 */
export async function updateEscalationPolicy(
  deps: { prisma: PrismaClient; guard: SsrfGuard; config: Pick<Config, 'encryption'> },
  { ctx, input: { id, changes } }: { ctx: ServiceContext; input: { id: string; changes: UpdateEscalationPolicyInput } },
): Promise<EscalationPolicyRecord> {
  assertCan(ctx.role, 'escalationPolicies:manage');
  const current = await findOwnPolicy(deps.prisma, ctx, id);
  const { steps, isDefault, ...plain } = changes;
  if (steps) await assertTargetsAllowed(deps.guard, steps);
  return deps.prisma.$transaction(async (tx) => {
    // The If-Match check in the UPDATE that bumps `version`, then the archived check and the pinned count.
    await claimVersion(tx, ctx, 'escalation_policy', current.id);
    const { pinned } = await lockPolicy(tx, ctx, current.id);
    const before = toEscalationPolicyRecord(await findOwnPolicy(tx, ctx, current.id));
    if (steps) {
      const before = await tx.escalationPolicy.findUniqueOrThrow({ where: { id: current.id } });
      if (pinned > 0) await archiveLadder(tx, before, before.createdAt, ctx.now);
      else await tx.escalationStep.deleteMany({ where: { policyId: current.id } });
    }
    await tx.escalationPolicy.update({
      where: { id: current.id },
      data: { ...plain, ...(steps ? { steps: stepsCreate(steps, deps.config.encryption.current) } : {}) },
    });
    if (isDefault === true)
      await tx.workspace.update({ where: { id: ctx.workspace.id }, data: { defaultEscalationPolicyId: current.id } });
    if (isDefault === false)
      await tx.workspace.updateMany({
        where: { id: ctx.workspace.id, defaultEscalationPolicyId: current.id },
        data: { defaultEscalationPolicyId: null },
      });
    const after = toEscalationPolicyRecord(
      await tx.escalationPolicy.findUniqueOrThrow({ where: { id: current.id }, select: escalationPolicySelect }),
    );
    await recordAuditEvent(tx, ctx, {
      resourceType: 'escalation_policy',
      resourceId: current.id,
      action: 'updated',
      changes: changesBetween(before, after),
    });
    return after;
  });
}
