import { pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { toWebhookRecord, webhookRecordSelect, type WebhookRecord } from './webhook-record.js';

/** GET /webhooks (managers): the workspace's webhooks, oldest first. */
export async function listWebhooks(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: PaginationQuery },
) {
  assertCan(ctx.role, 'webhooks:manage');
  const where = { workspaceId: ctx.workspace.id };
  const [rows, total] = await Promise.all([
    deps.prisma.webhook.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (input.page - 1) * input.perPage,
      take: input.perPage,
      select: webhookRecordSelect,
    }),
    deps.prisma.webhook.count({ where }),
  ]);
  return { data: rows.map(toWebhookRecord) as WebhookRecord[], pagination: pagination(input, total) };
}
