import {
  encryptSecret,
  redactUrl,
  tryDecryptSecret,
  type Keyring,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { assertWebhookUrl, type UpdateWebhookInput } from './webhook-input.js';
import { toWebhookRecord, webhookRecordSelect, type WebhookRecord, webhookLookup } from './webhook-record.js';
import { findOwn } from '../records.js';

/**
 * PATCH /webhooks/{id} (managers): only the given fields change. A new URL passes the SSRF guard; deliveries not
 * yet sent go to it. New `types` apply to the events not yet dispatched. The URL is a secret (it may carry a token):
 * its audit change shows only `"<redacted>"`, and the same URL sent again changes nothing.
 */
export async function updateWebhook(
  deps: { prisma: PrismaClient; guard: SsrfGuard; keyring: Keyring },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; changes: UpdateWebhookInput } },
): Promise<WebhookRecord> {
  assertCan(ctx.role, 'webhooks:manage');
  const { id, changes } = input;
  const current = await findOwn(deps.prisma, ctx, webhookLookup, id);
  if (changes.url !== undefined) await assertWebhookUrl(deps.guard, changes.url);
  return deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'webhook', current.id); // If-Match, and the row locked
    const { urlEnc, ...before } = await tx.webhook.findUniqueOrThrow({
      where: { id: current.id },
      select: { ...webhookRecordSelect, urlEnc: true },
    });
    // A stored URL no configured key opens (a key retired too early) reads as null: any URL sent is new.
    const newUrl = changes.url !== undefined && tryDecryptSecret(urlEnc, null, deps.keyring) !== changes.url;
    const after = await tx.webhook.update({
      where: { id: current.id },
      data: {
        ...(newUrl && changes.url !== undefined
          ? { urlEnc: encryptSecret(changes.url, deps.keyring.current).ciphertext, urlDisplay: redactUrl(changes.url) }
          : {}),
        ...(changes.types !== undefined ? { types: changes.types } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
      },
      select: webhookRecordSelect,
    });
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'webhook',
      resourceId: current.id,
      changes: changesBetween(toWebhookRecord(before), toWebhookRecord(after), newUrl ? { url: [true, true] } : {}),
    });
    return toWebhookRecord({ ...after, version: version ?? after.version });
  });
}
