import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';

/** One of the caller's status pages; a malformed or foreign id is the same 404 as a missing one. */
export async function findOwnPageId(prisma: PrismaClient, ctx: ServiceContext, id: string): Promise<string> {
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('status page', id);
  const page = await prisma.statusPage.findFirst({
    where: { id, workspaceId: ctx.workspace.id },
    select: { id: true },
  });
  if (!page) throw new NotFoundError('status page', id);
  return page.id;
}
