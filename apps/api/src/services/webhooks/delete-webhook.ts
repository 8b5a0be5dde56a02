import type { PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { toWebhookRecord, webhookLookup } from './webhook-record.js';
import { findOwn } from '../records.js';

/** DELETE /webhooks/{id} (managers) -> 204: the webhook and its delivery history go; nothing more is sent. */
export async function deleteWebhook(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'webhooks:manage');
  const hook = await findOwn(deps.prisma, ctx, webhookLookup, input.id);
  await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'webhook', hook.id); // If-Match, and the row locked
    const before = toWebhookRecord(await findOwn(tx, ctx, webhookLookup, hook.id));
    await tx.webhook.delete({ where: { id: hook.id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'webhook',
      resourceId: hook.id,
      action: 'deleted',
      changes: changesBetween(before, null),
    });
  });
}
