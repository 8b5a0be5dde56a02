import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { statusPageRecordSelect, type StatusPageRow } from './status-page-record.js';

/** One of the caller's status pages; a malformed or foreign id is the same 404 as a missing one. */
export async function findOwnStatusPage(
  prisma: Pick<PrismaClient, 'statusPage'>,
  ctx: RequestContext,
  id: string,
): Promise<StatusPageRow> {
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('status page', id);
  const row = await prisma.statusPage.findFirst({
    where: { id, workspaceId: ctx.workspace.id },
    select: statusPageRecordSelect,
  });
  if (!row) throw new NotFoundError('status page', id);
  return row;
}
