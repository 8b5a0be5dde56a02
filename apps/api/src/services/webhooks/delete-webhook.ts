import { NotFoundError, type PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwnWebhook } from './find-webhook.js';

/** DELETE /webhooks/{id} (managers) -> 204: the webhook and its delivery history go; nothing more is sent. */
export async function deleteWebhook(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'webhooks:manage');
  const row = await findOwnWebhook(deps.prisma, ctx, input.id);
  const { count } = await deps.prisma.webhook.deleteMany({ where: { id: row.id, workspaceId: ctx.workspace.id } });
  if (count === 0) throw new NotFoundError('webhook', input.id);
}
