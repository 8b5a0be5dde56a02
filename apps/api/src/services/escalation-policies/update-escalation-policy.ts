import type { Config, Prisma, PrismaClient, SsrfGuard } from '@statusvane/shared';
import { changesBetween, claimVersion, recordUpdate, type WriteContext } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { makeDefault, type PreviousDefault } from './create-escalation-policy.js';
import { archiveLadder, lockPolicy } from './lock-policy.js';
import { assertPeopleExist, assertTargetsAllowed, type UpdateEscalationPolicyInput } from './policy-input.js';
import {
  escalationPolicySelect,
  toEscalationPolicyRecord,
  type EscalationPolicyRecord,
  policyLookup,
} from './policy-record.js';
import { stepsCreate } from './policy-steps.js';
import { findOwn } from '../records.js';

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
  const current = await findOwn(deps.prisma, ctx, policyLookup, id);
  if (changes.steps) {
    await assertTargetsAllowed(deps.guard, changes.steps);
    await assertPeopleExist(deps.prisma, ctx.workspace.id, changes.steps);
  }
  const row = await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'escalation_policy', current.id); // If-Match
    const recordBefore = toEscalationPolicyRecord(
      await tx.escalationPolicy.findUniqueOrThrow({ where: { id: current.id }, select: escalationPolicySelect }),
    );
    await updatePolicyInTx(tx, deps, ctx, current.id, changes);
    const after = toEscalationPolicyRecord(
      await tx.escalationPolicy.findUniqueOrThrow({ where: { id: current.id }, select: escalationPolicySelect }),
    );
    // Records show targets by `display` only: no secret reaches the event.
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'escalation_policy',
      resourceId: current.id,
      changes: changesBetween(recordBefore, after),
    });
    return { ...after, version: version ?? after.version };
  });
  return row;
}

/**
 * The writes of an update, in the caller's transaction (targets already judged), the policy row locked first.
 * Shared with config/apply (`previousDefault: 'planned'`: see makeDefault).
 */
export async function updatePolicyInTx(
  tx: Prisma.TransactionClient,
  deps: { config: Pick<Config, 'encryption'> },
  ctx: WriteContext,
  id: string,
  changes: UpdateEscalationPolicyInput,
  previousDefault: PreviousDefault = 'record',
): Promise<void> {
  const { steps, isDefault, ...plain } = changes;
  const { pinned } = await lockPolicy(tx, ctx, id);
  if (steps) {
    const before = await tx.escalationPolicy.findUniqueOrThrow({ where: { id } });
    if (pinned > 0) await archiveLadder(tx, before, before.createdAt, ctx.now);
    else await tx.escalationStep.deleteMany({ where: { policyId: id } });
  }
  await tx.escalationPolicy.update({
    where: { id },
    data: { ...plain, ...(steps ? { steps: stepsCreate(steps, deps.config.encryption.current) } : {}) },
  });
  if (isDefault === true) await makeDefault(tx, ctx, id, previousDefault);
  if (isDefault === false)
    await tx.workspace.updateMany({
      where: { id: ctx.workspace.id, defaultEscalationPolicyId: id },
      data: { defaultEscalationPolicyId: null },
    });
}
