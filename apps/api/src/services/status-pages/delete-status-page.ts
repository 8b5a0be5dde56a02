import type { Config, PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { toStatusPageRecord, statusPageLookup } from './status-page-record.js';
import { findOwn } from '../records.js';

/** DELETE /status-pages/{id} (managers): the page, its sections and its public address go at once; the slug is free. */
export async function deleteStatusPage(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'statusPages:manage');
  const page = await findOwn(prisma, ctx, statusPageLookup, id);
  await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'status_page', page.id);
    const before = await findOwn(tx, ctx, statusPageLookup, page.id);
    await tx.statusPage.delete({ where: { id: page.id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'status_page',
      resourceId: page.id,
      action: 'deleted',
      changes: changesBetween(toStatusPageRecord(before, config.publicBaseUrl), null),
    });
  });
}
