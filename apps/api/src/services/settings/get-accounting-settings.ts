import { loadAccountingSettings, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { toAccountingSettingsRecord, type AccountingSettingsRecord } from './accounting-settings-record.js';

/** GET /settings/accounting: the workspace's accounting policy (the defaults at version 1 until first changed). */
export async function getAccountingSettings(
  { prisma }: { prisma: PrismaClient },
  { ctx }: { ctx: ServiceContext; input?: undefined },
): Promise<AccountingSettingsRecord> {
  return toAccountingSettingsRecord(await loadAccountingSettings(prisma, ctx.workspace.id));
}
