import type { PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwnWebhook } from './find-webhook.js';
import { toWebhookRecord, type WebhookRecord } from './webhook-record.js';

/** GET /webhooks/{id} (managers). */
export async function getWebhook(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<WebhookRecord> {
  assertCan(ctx.role, 'webhooks:manage');
  return toWebhookRecord(await findOwnWebhook(deps.prisma, ctx, input.id));
}
