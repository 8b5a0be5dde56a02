import { NotFoundError, uuidSchema, type Prisma, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { webhookRecordSelect } from './webhook-record.js';

/** The caller's workspace's webhook, or 404 (another workspace's id is not found either). */
export async function findOwnWebhook(
  prisma: PrismaClient | Prisma.TransactionClient,
  ctx: Pick<ServiceContext, 'workspace'>,
  id: string,
) {
  const row = uuidSchema.safeParse(id).success
    ? await prisma.webhook.findFirst({ where: { id, workspaceId: ctx.workspace.id }, select: webhookRecordSelect })
    : null;
  if (!row) throw new NotFoundError('webhook', id);
  return row;
}
