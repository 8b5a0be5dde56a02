import {
  decryptSecret,
  SIGNATURE_HEADER,
  signWebhook,
  statusPageUrl,
  type Keyring,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { postOnce, type EmailSender } from '@statusvane/shared';
import { buildMessage } from './messages.js';

export interface SubscriberDeliveryDeps {
  prisma: PrismaClient;
  keyring: Keyring;
  guard: SsrfGuard;
  /** null: SMTP is not configured; email deliveries end `failed` with reason `email not configured`. */
  email: EmailSender | null;
  publicBaseUrl: string;
  timeoutMs?: number;
  now?: () => Date;
}

export type DeliveryResult =
  | { outcome: 'sent' }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'failed'; reason: string }
  /** A failure that may pass: the row is pending again; the caller (BullMQ) retries later. */
  | { outcome: 'retry'; reason: string };

/** Thrown by the processor for a `retry` outcome, so BullMQ schedules the next attempt with its backoff. */
export class RetryDeliveryError extends Error {}

/**
 * Sends one stored delivery, at most once. The row is claimed (`pending` -> `sending`) by a conditional update
 * before anything is sent; only the claimer sends. After the send it is `sent`, or `failed`, or (a failure that may
 * pass, attempts left) `pending` again for the next try. A worker that dies after the claim leaves it `sending`:
 * the job's retry finds it claimed and sends nothing, so a crash never gives a second mail (the price: that one
 * message may be lost).
 */
export async function deliverSubscriberMessage(
  deps: SubscriberDeliveryDeps,
  deliveryId: string,
  opts: { finalAttempt: boolean },
): Promise<DeliveryResult> {
  const { prisma } = deps;
  const now = deps.now ?? (() => new Date());
  const row = await prisma.subscriberDelivery.findUnique({
    where: { id: deliveryId },
    select: {
      id: true,
      status: true,
      eventKey: true,
      subscriber: {
        select: {
          id: true,
          workspaceId: true,
          kind: true,
          email: true,
          webhookUrlEnc: true,
          secretEnc: true,
          confirmTokenEnc: true,
          unsubscribeTokenEnc: true,
          confirmedAt: true,
          statusPage: { select: { name: true, slug: true, id: true } },
        },
      },
    },
  });
  if (!row) return { outcome: 'skipped', reason: 'gone' };
  if (row.status !== 'pending') return { outcome: 'skipped', reason: `already ${row.status}` };
  const claimed = await prisma.subscriberDelivery.updateMany({
    where: { id: deliveryId, status: 'pending' },
    data: { status: 'sending', claimedAt: now(), attempts: { increment: 1 } },
  });
  if (claimed.count !== 1) return { outcome: 'skipped', reason: 'claimed elsewhere' };

  const finish = async (result: DeliveryResult): Promise<DeliveryResult> => {
    const data =
      result.outcome === 'sent'
        ? { status: 'sent' as const, sentAt: now(), reason: null }
        : result.outcome === 'retry'
          ? { status: 'pending' as const, reason: result.reason }
          : { status: 'failed' as const, reason: result.reason };
    await prisma.subscriberDelivery.update({ where: { id: deliveryId }, data });
    return result;
  };
  const failure = (reason: string, retryable: boolean): DeliveryResult =>
    retryable && !opts.finalAttempt ? { outcome: 'retry', reason } : { outcome: 'failed', reason };

  const s = row.subscriber;
  const pageUrl = statusPageUrl(deps.publicBaseUrl, s.statusPage.slug);
  const pageName = s.statusPage.name;
  const unsubscribeUrl = `${pageUrl}/subscriptions/${decryptSecret(s.unsubscribeTokenEnc, null, deps.keyring)}/unsubscribe`;

  if (row.eventKey.startsWith('confirm:')) {
    if (s.kind !== 'email' || !s.email || !s.confirmTokenEnc)
      return finish({ outcome: 'skipped', reason: 'nothing to confirm' });
    if (!deps.email) return finish({ outcome: 'failed', reason: 'email not configured' });
    const confirmUrl = `${pageUrl}/subscriptions/${decryptSecret(s.confirmTokenEnc, null, deps.keyring)}/confirm`;
    const sent = await deps.email.send({
      to: s.email,
      subject: `Confirm your subscription to ${pageName} status`,
      text: [
        `Someone (we hope you) asked to get incident and maintenance updates of ${pageName} at this address.`,
        '',
        `Confirm: ${confirmUrl}`,
        '',
        'The link works once, for 48 hours. If you did not ask for this, ignore this mail: nothing more will be sent.',
        '',
        `Status page: ${pageUrl}`,
      ].join('\n'),
    });
    return finish(sent.ok ? { outcome: 'sent' } : failure(sent.reason, sent.retryable));
  }

  if (!s.confirmedAt) return finish({ outcome: 'skipped', reason: 'not confirmed' });
  const message = await buildMessage(prisma, s.workspaceId, { name: pageName, url: pageUrl }, row.eventKey);
  if (!message) return finish({ outcome: 'skipped', reason: 'gone' });

  if (s.kind === 'email') {
    if (!s.email) return finish({ outcome: 'failed', reason: 'no address' });
    if (!deps.email) return finish({ outcome: 'failed', reason: 'email not configured' });
    const sent = await deps.email.send({
      to: s.email,
      subject: message.subject,
      text: `${message.text}\n\n--\nStatus page: ${pageUrl}\nUnsubscribe: ${unsubscribeUrl}\n`,
      // RFC 2369 and RFC 8058: mail clients offer a one-click unsubscribe that POSTs to the link.
      headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    return finish(sent.ok ? { outcome: 'sent' } : failure(sent.reason, sent.retryable));
  }

  if (!s.webhookUrlEnc || !s.secretEnc) return finish({ outcome: 'failed', reason: 'no target' });
  const body = JSON.stringify({
    id: row.id,
    type: message.type,
    page: { id: s.statusPage.id, name: pageName, url: pageUrl },
    ...message.data,
    unsubscribeUrl,
  });
  const t = Math.floor(now().getTime() / 1000);
  const result = await postOnce(deps.guard, {
    url: decryptSecret(s.webhookUrlEnc, null, deps.keyring),
    body,
    headers: {
      [SIGNATURE_HEADER]: signWebhook(decryptSecret(s.secretEnc, null, deps.keyring), t, body),
      'Statusvane-Delivery': row.id,
    },
    timeoutMs: deps.timeoutMs ?? 10_000,
  });
  return finish(result.ok ? { outcome: 'sent' } : failure(result.reason, result.retryable));
}
