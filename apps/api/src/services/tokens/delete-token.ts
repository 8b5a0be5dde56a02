import { ForbiddenError, NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { liveOrgTokens } from './token-record.js';

/**
 * DELETE /tokens/{id} (managers): the token is revoked and answers 401 from its next request on (tokens are read on
 * every request, never cached). Only an owner deletes an owner token (403), as only an owner mints one.
 */
export async function deleteToken(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'tokens:manage');
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('token', id);
  const where = { id, ...liveOrgTokens(ctx.workspace.id) };
  const row = await prisma.apiToken.findFirst({ where, select: { role: true } });
  if (!row) throw new NotFoundError('token', id);
  if (row.role === 'owner' && ctx.role !== 'owner') throw new ForbiddenError('Only an owner may delete an owner token');
  const { count } = await prisma.apiToken.updateMany({ where, data: { revokedAt: ctx.now } });
  if (count === 0) throw new NotFoundError('token', id);
}
