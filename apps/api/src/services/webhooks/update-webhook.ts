import { encryptSecret, redactUrl, type Keyring, type PrismaClient, type SsrfGuard } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwnWebhook } from './find-webhook.js';
import { assertWebhookUrl, type UpdateWebhookInput } from './webhook-input.js';
import { toWebhookRecord, webhookRecordSelect, type WebhookRecord } from './webhook-record.js';

/**
 * PATCH /webhooks/{id} (managers): only the given fields change. A new URL passes the SSRF guard; deliveries not
 * yet sent go to it. New `types` apply to the events not yet dispatched.
 */
export async function updateWebhook(
  deps: { prisma: PrismaClient; guard: SsrfGuard; keyring: Keyring },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; changes: UpdateWebhookInput } },
): Promise<WebhookRecord> {
  assertCan(ctx.role, 'webhooks:manage');
  const { id, changes } = input;
  const current = await findOwnWebhook(deps.prisma, ctx, id);
  if (changes.url !== undefined) await assertWebhookUrl(deps.guard, changes.url);
  const row = await deps.prisma.webhook.update({
    where: { id: current.id, workspaceId: ctx.workspace.id },
    data: {
      ...(changes.url !== undefined
        ? { urlEnc: encryptSecret(changes.url, deps.keyring.current).ciphertext, urlDisplay: redactUrl(changes.url) }
        : {}),
      ...(changes.types !== undefined ? { types: changes.types } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
    },
    select: webhookRecordSelect,
  });
  return toWebhookRecord(row);
}
