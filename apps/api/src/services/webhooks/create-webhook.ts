import {
  encryptSecret,
  endOfLog,
  randomSecret,
  redactUrl,
  type Keyring,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { assertWebhookUrl, type CreateWebhookInput } from './webhook-input.js';
import { toWebhookRecord, webhookRecordSelect, type CreatedWebhookRecord } from './webhook-record.js';

/**
 * POST /webhooks (managers) -> 201 with the signing secret, shown once (a replay of the same Idempotency-Key answers
 * `secret: null`). The URL passes the SSRF guard and is stored
 * encrypted. The webhook receives the events that commit from now on: its cursor starts at the end of the log as
 * it stands (the oldest transaction still running), so an event committing while it is created is sent too.
 */
export async function createWebhook(
  deps: { prisma: PrismaClient; guard: SsrfGuard; keyring: Keyring },
  { ctx, input }: { ctx: ServiceContext; input: CreateWebhookInput },
): Promise<CreatedWebhookRecord> {
  assertCan(ctx.role, 'webhooks:manage');
  await assertWebhookUrl(deps.guard, input.url);
  const secret = `whsec_${randomSecret(32)}`;
  return deps.prisma.$transaction(async (tx) => {
    const end = await endOfLog(tx);
    const row = await tx.webhook.create({
      data: {
        workspaceId: ctx.workspace.id,
        urlEnc: encryptSecret(input.url, deps.keyring.current).ciphertext,
        urlDisplay: redactUrl(input.url),
        secretEnc: encryptSecret(secret, deps.keyring.current).ciphertext,
        types: input.types ?? [],
        description: input.description ?? '',
        cursorTxid: end.txid,
        cursorSeq: end.seq,
      },
      select: webhookRecordSelect,
    });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'webhook',
      resourceId: row.id,
      action: 'created',
      // The URL may carry a token, and the secret is shown once: both by presence only.
      changes: changesBetween(null, toWebhookRecord(row), { url: [false, true], secret: [false, true] }),
    });
    const record = { ...toWebhookRecord(row), secret };
    // The stored answer of an Idempotency-Key never holds the secret: a replay answers `secret: null`, as tokens do.
    await ctx.inTransaction?.(tx, record, { ...record, secret: null });
    return record;
  });
}
