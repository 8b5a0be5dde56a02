import type { Config, Prisma, PrismaClient, SsrfGuard } from '@statusvane/shared';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { assertTargetsAllowed, type CreateEscalationPolicyInput } from './policy-input.js';
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
 * workspace default when `isDefault`. Shared with config/apply, which also gives the `ref`. Returns the new id.
 */
export async function createPolicyInTx(
  tx: Prisma.TransactionClient,
  deps: { config: Pick<Config, 'encryption'> },
  ctx: Pick<ServiceContext, 'workspace'>,
  input: CreateEscalationPolicyInput,
  ref: string | null = null,
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
  if (input.isDefault) await makeDefault(tx, ctx, id);
  return id;
}

/**
 * Moves the workspace's default to policy `id`, in the caller's transaction. The policy that was the default shows
 * `isDefault: false` from now on: a change of that record, so its version grows by one (the caller versions `id`).
 */
export async function makeDefault(
  tx: Prisma.TransactionClient,
  ctx: Pick<ServiceContext, 'workspace'>,
  id: string,
): Promise<void> {
  await tx.$executeRaw`
    UPDATE escalation_policies SET version = version + 1
     WHERE "workspaceId" = ${ctx.workspace.id}::uuid AND id <> ${id}::uuid
       AND id = (SELECT "defaultEscalationPolicyId" FROM workspaces WHERE id = ${ctx.workspace.id}::uuid)`;
  await tx.workspace.update({ where: { id: ctx.workspace.id }, data: { defaultEscalationPolicyId: id } });
}
