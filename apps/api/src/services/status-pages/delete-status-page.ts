import { NotFoundError, type PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwnStatusPage } from './find-status-page.js';

/** DELETE /status-pages/{id} (managers): the page, its sections and its public address go at once; the slug is free. */
export async function deleteStatusPage(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'statusPages:manage');
  const page = await findOwnStatusPage(prisma, ctx, id);
  const { count } = await prisma.statusPage.deleteMany({ where: { id: page.id, workspaceId: ctx.workspace.id } });
  if (count === 0) throw new NotFoundError('status page', id);
}
