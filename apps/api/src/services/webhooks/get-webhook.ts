import type { PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { toWebhookRecord, type WebhookRecord, webhookLookup } from './webhook-record.js';
import { findOwn } from '../records.js';

/** GET /webhooks/{id} (managers). */
export async function getWebhook(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<WebhookRecord> {
  assertCan(ctx.role, 'webhooks:manage');
  return toWebhookRecord(await findOwn(deps.prisma, ctx, webhookLookup, input.id));
}
