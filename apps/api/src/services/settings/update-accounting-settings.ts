import { loadAccountingSettings, type Prisma, type PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import type { ServiceContext } from '../context.js';
import {
  toAccountingSettingsRecord,
  type AccountingSettingsInput,
  type AccountingSettingsRecord,
} from './accounting-settings-record.js';

/**
 * PUT /settings/accounting: replaces the workspace's accounting policy (If-Match on its version; +1 and one audit
 * event `accounting_policy.updated` when a field changed). Every uptime figure counted from then on names the new
 * version, the status page bars included.
 */
export async function updateAccountingSettings(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: AccountingSettingsInput },
): Promise<AccountingSettingsRecord> {
  assertCan(ctx.role, 'reports:manage');
  const workspaceId = ctx.workspace.id;
  return prisma.$transaction(async (tx) => {
    await ensureAccountingPolicyInTx(tx, ctx);
    await claimVersion(tx, ctx, 'accounting_policy', workspaceId);
    const before = toAccountingSettingsRecord(await loadAccountingSettings(tx, workspaceId));
    await writeAccountingPolicyInTx(tx, ctx, input);
    const after = { ...input, reportRecipients: [...input.reportRecipients], version: before.version };
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'accounting_policy',
      resourceId: workspaceId,
      changes: changesBetween(before, after),
    });
    return { ...after, version: version ?? before.version };
  });
}

/** The defaults become a row at version 1 (what GET answered), so that If-Match has a row to lock. */
export async function ensureAccountingPolicyInTx(tx: Prisma.TransactionClient, ctx: ServiceContext): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO accounting_policies ("workspaceId") VALUES (${ctx.workspace.id}::uuid) ON CONFLICT DO NOTHING`;
}

/**
 * Writes the policy's fields in the caller's transaction (this verb's, or config/apply's); the caller claims the
 * version and records the event.
 */
export async function writeAccountingPolicyInTx(
  tx: Prisma.TransactionClient,
  ctx: ServiceContext,
  input: AccountingSettingsInput,
): Promise<void> {
  await ensureAccountingPolicyInTx(tx, ctx);
  await tx.accountingPolicy.update({
    where: { workspaceId: ctx.workspace.id },
    data: { ...input, updatedAt: ctx.now },
  });
}
