import {
  decryptSecret,
  postOnce,
  SIGNATURE_HEADER,
  signWebhook,
  toCloudEvent,
  WEBHOOK_RETRY_WINDOW_MS,
  webhookRetryDelayMs,
  type EventRow,
  type Keyring,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';

export interface WebhookDeliveryDeps {
  prisma: PrismaClient;
  keyring: Keyring;
  guard: SsrfGuard;
  timeoutMs?: number;
  /** The first retry's wait (webhookRetryDelayMs); tests shorten it. */
  retryBaseMs?: number;
  now?: () => Date;
}

export type WebhookDeliveryResult =
  | { outcome: 'sent'; statusCode: number }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'failed'; reason: string }
  /** Pending again, tried next at `nextAttemptAt`; the processor throws so that BullMQ retries with backoff. */
  | { outcome: 'retry'; reason: string; delayMs: number };

/** Thrown by the processor for a `retry` outcome: BullMQ schedules the next attempt with the webhook backoff. */
export class RetryWebhookError extends Error {}

/**
 * Sends one delivery: the CloudEvents JSON of its event, signed afresh (`Statusvane-Signature`), with
 * `Statusvane-Delivery` = the delivery id, through the SSRF guard (the address dialled is checked, whatever the URL
 * resolved to when it was written). At least once: nothing is claimed before the POST, so a worker killed after
 * the receiver answered but before the row says `sent` sends it again (same body, same event id). A 2xx is `sent`;
 * any other answer (4xx, 3xx and 5xx alike), a timeout or a connection error stays `pending` for a retry while the
 * delivery is younger than WEBHOOK_RETRY_WINDOW_MS; a refusal to send (SSRF guard, invalid URL) is `failed` at once.
 */
export async function deliverWebhookEvent(
  deps: WebhookDeliveryDeps,
  deliveryId: string,
): Promise<WebhookDeliveryResult> {
  const { prisma } = deps;
  const now = deps.now ?? (() => new Date());
  const [row] = await prisma.$queryRaw<
    Array<{
      status: string;
      attempts: number;
      createdAt: Date;
      urlEnc: string;
      secretEnc: string;
      event: (Omit<EventRow, 'seq' | 'txid'> & { seq: string; txid: string }) | null;
    }>
  >`
    SELECT d.status::text AS status, d.attempts, d."createdAt", w."urlEnc", w."secretEnc",
      (SELECT json_build_object('seq', e.seq::text, 'txid', e.txid::text, 'id', event_id(e), 'type', e.type,
        'subject', e.subject, 'time', e.time, 'data', event_data(e), 'workspaceId', e."workspaceId")
       FROM events e WHERE e.seq = d."eventSeq") AS event
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d."webhookId"
    WHERE d.id = ${deliveryId}::uuid`;
  if (!row) return { outcome: 'skipped', reason: 'gone' };
  if (row.status !== 'pending') return { outcome: 'skipped', reason: `already ${row.status}` };
  const attempt = now();
  if (!row.event) {
    await prisma.webhookDelivery.updateMany({
      where: { id: deliveryId, status: 'pending' },
      data: { status: 'failed', reason: 'event_expired', lastAttemptAt: attempt },
    });
    return { outcome: 'failed', reason: 'event_expired' };
  }
  const e = row.event;
  const body = JSON.stringify(
    toCloudEvent({ ...e, seq: BigInt(e.seq), txid: BigInt(e.txid), time: new Date(e.time as unknown as string) }),
  );
  const result = await postOnce(deps.guard, {
    url: decryptSecret(row.urlEnc, null, deps.keyring),
    body,
    headers: {
      'content-type': 'application/cloudevents+json; charset=utf-8',
      [SIGNATURE_HEADER]: signWebhook(
        decryptSecret(row.secretEnc, null, deps.keyring),
        Math.floor(attempt.getTime() / 1000),
        body,
      ),
      'Statusvane-Delivery': deliveryId,
    },
    timeoutMs: deps.timeoutMs ?? 10_000,
  });
  const attempts = row.attempts + 1;
  const base = { attempts, lastAttemptAt: attempt };
  if (result.ok) {
    await prisma.webhookDelivery.updateMany({
      where: { id: deliveryId, status: 'pending' },
      data: { ...base, status: 'sent', responseStatus: result.statusCode, reason: null, deliveredAt: attempt },
    });
    return { outcome: 'sent', statusCode: result.statusCode };
  }
  const failure = { ...base, reason: result.reason, responseStatus: result.statusCode ?? null };
  const delayMs = webhookRetryDelayMs(attempts, deps.retryBaseMs);
  const nextAttemptAt = new Date(attempt.getTime() + delayMs);
  // Every answer that is not a 2xx is retried, a 4xx too (a receiver half-deployed answers 404 for a while), as
  // Stripe does; only a refusal to send at all (the SSRF guard, an invalid URL) gives up at once.
  const retryable = result.retryable || result.statusCode !== undefined;
  if (retryable && nextAttemptAt.getTime() < row.createdAt.getTime() + WEBHOOK_RETRY_WINDOW_MS) {
    await prisma.webhookDelivery.updateMany({
      where: { id: deliveryId, status: 'pending' },
      data: { ...failure, nextAttemptAt },
    });
    return { outcome: 'retry', reason: result.reason, delayMs };
  }
  await prisma.webhookDelivery.updateMany({
    where: { id: deliveryId, status: 'pending' },
    data: { ...failure, status: 'failed' },
  });
  return { outcome: 'failed', reason: result.reason };
}
