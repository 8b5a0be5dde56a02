import type { Config, Prisma, PrismaClient, SsrfGuard } from '@statusvane/shared';
import { changesBetween, recordAuditEvent, type WriteContext } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { assertPeopleExist, assertTargetsAllowed, type CreateEscalationPolicyInput } from './policy-input.js';
import { escalationPolicySelect, toEscalationPolicyRecord, type EscalationPolicyRecord } from './policy-record.js';
import { stepsCreate } from './policy-steps.js';

/**
 * POST /escalation-policies (managers), and the admin CLI's `policy create`: the policy with its ordered steps and
 * targets in one transaction (with `isDefault`, the workspace's default moves to it). URL targets pass the SSRF guard
 * first; every target is stored encrypted.
 */
export async function createEscalationPolicy(
  deps: { prisma: PrismaClient; guard: SsrfGuard; config: Pick<Config, 'encryption'> },
  { ctx, input }: { ctx: ServiceContext; input: CreateEscalationPolicyInput },
): Promise<EscalationPolicyRecord> {
  assertCan(ctx.role, 'escalationPolicies:manage');
  await assertTargetsAllowed(deps.guard, input.steps);
  await assertPeopleExist(deps.prisma, ctx.workspace.id, input.steps);
  return deps.prisma.$transaction(async (tx) => {
    const id = await createPolicyInTx(tx, deps, ctx, input);
    const record = toEscalationPolicyRecord(
      await tx.escalationPolicy.findUniqueOrThrow({ where: { id }, select: escalationPolicySelect }),
    );
    await recordAuditEvent(tx, ctx, {
      resourceType: 'escalation_policy',
      resourceId: id,
      action: 'created',
      changes: changesBetween(null, record),
    });
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}

/**
 * The writes of a create, in the caller's transaction (targets already judged): the policy, its ladder, and the
 * workspace default when `isDefault`. Shared with config/apply, which also gives the `ref` and records the previous
 * default's change with its plan. Returns the new id.
 */
export async function createPolicyInTx(
  tx: Prisma.TransactionClient,
  deps: { config: Pick<Config, 'encryption'> },
  ctx: WriteContext,
  input: CreateEscalationPolicyInput,
  { ref = null, previousDefault = 'record' }: { ref?: string | null; previousDefault?: PreviousDefault } = {},
): Promise<string> {
  const { id } = await tx.escalationPolicy.create({
    data: {
      workspaceId: ctx.workspace.id,
      ref,
      name: input.name,
      repeatCount: input.repeatCount,
      silent: input.silent,
      runbook: input.runbook,
      steps: stepsCreate(input.steps, deps.config.encryption.current),
    },
    select: { id: true },
  });
  if (input.isDefault) await makeDefault(tx, ctx, id, previousDefault);
  return id;
}

/**
 * Who records the change of the policy that loses the default: the write itself (`record`, the API and the admin
 * CLI), or config/apply, whose plan shows that change and records it with the others (`planned`).
 */
export type PreviousDefault = 'record' | 'planned';

/**
 * Moves the workspace's default to policy `id`, in the caller's transaction (the caller versions `id`). The policy
 * that was the default shows `isDefault: false` from now on, a change of that record: with `record`, its version
 * grows by one and `escalation_policy.updated` names `changes.isDefault`. The workspace row is locked, so two moves
 * of the default take turns and each sees the other's result as the previous default.
 */
export async function makeDefault(
  tx: Prisma.TransactionClient,
  ctx: WriteContext,
  id: string,
  previousDefault: PreviousDefault = 'record',
): Promise<void> {
  const [workspace] = await tx.$queryRaw<Array<{ previous: string | null }>>`
    SELECT "defaultEscalationPolicyId" AS previous FROM workspaces WHERE id = ${ctx.workspace.id}::uuid FOR UPDATE`;
  const previous = workspace?.previous ?? null;
  if (previous === id) return;
  await tx.workspace.update({ where: { id: ctx.workspace.id }, data: { defaultEscalationPolicyId: id } });
  if (previous !== null && previousDefault === 'record')
    await recordAuditEvent(tx, ctx, {
      resourceType: 'escalation_policy',
      resourceId: previous,
      action: 'updated',
      changes: { isDefault: { from: true, to: false } },
    });
}
