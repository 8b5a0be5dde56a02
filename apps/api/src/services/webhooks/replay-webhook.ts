import {
  assertCursorWithinLog,
  cursorSchema,
  endOfLog,
  notifyWebhookDispatch,
  type PrismaClient,
} from '@statusvane/shared';
import { z } from 'zod';
import { claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { toWebhookRecord, type WebhookRecord, webhookLookup } from './webhook-record.js';
import { findOwn } from '../records.js';

export const replayWebhookSchema = z.object({ after: cursorSchema }).strict();
export type ReplayWebhookInput = z.output<typeof replayWebhookSchema>;

/**
 * POST /webhooks/{id}/replay `{ after }` (managers): every event after the cursor (a `nextCursor` or an event's
 * `sequence`) of the webhook's types is sent again, as new deliveries marked `replay`, then the live stream goes
 * on from there. The webhook's cursor moves back to `after` and its generation goes up, so deliveries already made
 * stay in the history and the replayed ones are told apart; a replay during a replay starts over from its `after`.
 * Recorded as `webhook.replayed`, but not an edit: the record the API shows is unchanged, so its `version` and
 * `updatedAt` stay, and a PATCH holding that version still applies. An `after` beyond the end of the log is 400.
 */
export async function replayWebhook(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } & ReplayWebhookInput },
): Promise<WebhookRecord> {
  assertCan(ctx.role, 'webhooks:manage');
  const hook = await findOwn(deps.prisma, ctx, webhookLookup, input.id);
  return deps.prisma.$transaction(async (tx) => {
    // A cursor beyond the end of the log would silence the webhook until the log caught up with it: 400.
    assertCursorWithinLog(input.after, await endOfLog(tx));
    await claimVersion(tx, ctx, 'webhook', hook.id); // the row locked (404 if deleted meanwhile)
    // In SQL, as the dispatcher moves the cursor: Prisma would set `updatedAt`, which says when it was last edited.
    await tx.$executeRaw`
      UPDATE webhooks SET "cursorTxid" = ${input.after.txid}, "cursorSeq" = ${input.after.seq}, generation = generation + 1
       WHERE id = ${hook.id}::uuid`;
    await notifyWebhookDispatch(tx); // the workers fan the events out again on commit, no new event being there to tell them
    await recordAuditEvent(tx, ctx, { resourceType: 'webhook', resourceId: hook.id, action: 'replayed', edit: false });
    return toWebhookRecord(await findOwn(tx, ctx, webhookLookup, hook.id));
  });
}
