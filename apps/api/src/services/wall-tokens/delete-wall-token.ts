import type { PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { toWallTokenRecord, wallTokenLookup } from './wall-token-record.js';

/**
 * DELETE /wall-tokens/{id} (managers): the row goes, so the wall view answers 404 from its next request on (the
 * view reads the token on every request, never cached).
 */
export async function deleteWallToken(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'wallTokens:manage');
  await findOwn(prisma, ctx, wallTokenLookup, id);
  await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'wall_token', id);
    const row = await findOwn(tx, ctx, wallTokenLookup, id);
    await tx.wallToken.delete({ where: { id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'wall_token',
      resourceId: id,
      action: 'deleted',
      changes: changesBetween(toWallTokenRecord(row), null),
    });
  });
}
