import type { PaginationQuery, PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { toWebhookRecord, webhookRecordSelect } from './webhook-record.js';

/** GET /webhooks (managers): the workspace's webhooks, oldest first. */
export async function listWebhooks(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: PaginationQuery },
) {
  assertCan(ctx.role, 'webhooks:manage');
  const where = { workspaceId: ctx.workspace.id };
  return listPage(
    deps.prisma,
    input,
    (window) => [
      deps.prisma.webhook.count({ where }),
      deps.prisma.webhook.findMany({
        where,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: webhookRecordSelect,
        ...window,
      }),
    ],
    (rows) => rows.map(toWebhookRecord),
  );
}
