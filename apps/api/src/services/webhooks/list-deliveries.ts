import type { PaginationQuery, PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn, listPage } from '../records.js';
import { toWebhookDeliveryRecord, webhookDeliverySelect, webhookLookup } from './webhook-record.js';

/** GET /webhooks/{id}/deliveries (managers): the delivery history (30 days), newest first. */
export async function listWebhookDeliveries(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: PaginationQuery } },
) {
  assertCan(ctx.role, 'webhooks:manage');
  const hook = await findOwn(deps.prisma, ctx, webhookLookup, input.id);
  const where = { webhookId: hook.id };
  return listPage(
    deps.prisma,
    input.query,
    (window) => [
      deps.prisma.webhookDelivery.count({ where }),
      deps.prisma.webhookDelivery.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { eventSeq: 'desc' }, { generation: 'desc' }],
        select: webhookDeliverySelect,
        ...window,
      }),
    ],
    (rows) => rows.map(toWebhookDeliveryRecord),
  );
}
