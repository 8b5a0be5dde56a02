import { cursorSchema, NotFoundError, type PrismaClient } from '@statusvane/shared';
import { z } from 'zod';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwnWebhook } from './find-webhook.js';
import { toWebhookRecord, webhookRecordSelect, type WebhookRecord } from './webhook-record.js';

export const replayWebhookSchema = z.object({ after: cursorSchema }).strict();
export type ReplayWebhookInput = z.output<typeof replayWebhookSchema>;

/**
 * POST /webhooks/{id}/replay `{ after }` (managers): every event after the cursor (a `nextCursor` or an event's
 * `sequence`) of the webhook's types is sent again, as new deliveries marked `replay`, then the live stream goes
 * on from there. The webhook's cursor moves back to `after` and its generation goes up, so deliveries already made
 * stay in the history and the replayed ones are told apart; a replay during a replay starts over from its `after`.
 */
export async function replayWebhook(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } & ReplayWebhookInput },
): Promise<WebhookRecord> {
  assertCan(ctx.role, 'webhooks:manage');
  const hook = await findOwnWebhook(deps.prisma, ctx, input.id);
  const { count } = await deps.prisma.webhook.updateMany({
    where: { id: hook.id, workspaceId: ctx.workspace.id },
    data: { cursorTxid: input.after.txid, cursorSeq: input.after.seq, generation: { increment: 1 } },
  });
  if (count === 0) throw new NotFoundError('webhook', input.id);
  return toWebhookRecord(
    await deps.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id }, select: webhookRecordSelect }),
  );
}
