import { ForbiddenError, type PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { tokenLookup, toApiTokenRecord } from './token-record.js';

/**
 * DELETE /tokens/{id} (managers): the token is revoked and answers 401 from its next request on (tokens are read on
 * every request, never cached). Only an owner deletes an owner token (403), as only an owner mints one.
 */
export async function deleteToken(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'tokens:manage');
  await findOwn(prisma, ctx, tokenLookup, id);
  await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'token', id);
    // Read again under the row lock the claim took: revoked meanwhile is 404, as before.
    const row = await findOwn(tx, ctx, tokenLookup, id);
    if (row.role === 'owner' && ctx.role !== 'owner')
      throw new ForbiddenError('Only an owner may delete an owner token');
    await tx.apiToken.update({ where: { id }, data: { revokedAt: ctx.now } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'token',
      resourceId: id,
      action: 'deleted',
      changes: changesBetween(toApiTokenRecord(row), null),
    });
  });
}
