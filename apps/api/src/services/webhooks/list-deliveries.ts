import { pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwnWebhook } from './find-webhook.js';
import { toWebhookDeliveryRecord, webhookDeliverySelect } from './webhook-record.js';

/** GET /webhooks/{id}/deliveries (managers): the delivery history (30 days), newest first. */
export async function listWebhookDeliveries(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: PaginationQuery } },
) {
  assertCan(ctx.role, 'webhooks:manage');
  const hook = await findOwnWebhook(deps.prisma, ctx, input.id);
  const where = { webhookId: hook.id };
  const [rows, total] = await Promise.all([
    deps.prisma.webhookDelivery.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { eventSeq: 'desc' }, { generation: 'desc' }],
      skip: (input.query.page - 1) * input.query.perPage,
      take: input.query.perPage,
      select: webhookDeliverySelect,
    }),
    deps.prisma.webhookDelivery.count({ where }),
  ]);
  return { data: rows.map(toWebhookDeliveryRecord), pagination: pagination(input.query, total) };
}
