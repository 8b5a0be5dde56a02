import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnPageId } from './own-page.js';

/** DELETE /status-pages/{id}/subscribers/{subscriberId} (managers) -> 204; unknown or foreign: 404. */
export async function deleteSubscriber(
  deps: { prisma: PrismaClient },
  { ctx, input: { id, subscriberId } }: { ctx: ServiceContext; input: { id: string; subscriberId: string } },
): Promise<void> {
  assertCan(ctx.role, 'statusPages:manage');
  const statusPageId = await findOwnPageId(deps.prisma, ctx, id);
  if (!uuidSchema.safeParse(subscriberId).success) throw new NotFoundError('subscriber', subscriberId);
  const { count } = await deps.prisma.statusPageSubscriber.deleteMany({
    where: { id: subscriberId, statusPageId, workspaceId: ctx.workspace.id },
  });
  if (count === 0) throw new NotFoundError('subscriber', subscriberId);
}
