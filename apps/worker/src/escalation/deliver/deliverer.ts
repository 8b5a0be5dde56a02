import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  signWebhook,
  webhookSigningSecret,
  type SsrfGuard,
} from '@statusvane/shared';
import { createEmailSender, type EmailSender } from './email.js';
import { postOnce } from './http-post.js';
import { emailContent, slackBody, webhookBody, type Page } from './page.js';
import { DEFAULT_RETRY, withRetries, type RetryPolicy } from './retry.js';

export type Channel = 'webhook' | 'slack' | 'email';

/** The final state of one delivery row. */
export interface DeliveryOutcome {
  status: 'sent' | 'failed' | 'skipped';
  attempts: number;
  reason: string | null;
  sentAt: Date | null;
}

export interface Deliverer {
  deliver(channel: Channel, target: string, page: Page): Promise<DeliveryOutcome>;
  close(): void;
}

export interface DelivererOptions {
  guard: SsrfGuard;
  /** The current encryption key: webhook signing secrets are derived from it per workspace. */
  encryptionKey: Buffer;
  /** null: email deliveries are recorded `skipped` with reason `email not configured`. */
  smtp: { url: string; from: string } | null;
  timeoutMs?: number;
  retry?: RetryPolicy;
  now?: () => Date;
}

/**
 * Sends pages. Webhook: the JSON page, signed (`X-Statusvane-Signature: v1=<hex HMAC-SHA256 of
 * "<timestamp>.<body>">`, timestamp in `X-Statusvane-Timestamp`, signed afresh on every attempt), with
 * `X-Statusvane-Delivery` as an idempotency key. Slack: an incoming-webhook `{ text }`. Email: SMTP. Every channel
 * retries transient failures (DEFAULT_RETRY) with a timeout per attempt.
 */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retry = options.retry ?? DEFAULT_RETRY;
  const now = options.now ?? (() => new Date());
  const email: EmailSender | null = options.smtp ? createEmailSender(options.smtp, timeoutMs) : null;
  const secrets = new Map<string, string>();
  const secretFor = (workspaceId: string) => {
    let s = secrets.get(workspaceId);
    if (!s) secrets.set(workspaceId, (s = webhookSigningSecret(options.encryptionKey, workspaceId)));
    return s;
  };

  async function deliver(channel: Channel, target: string, page: Page): Promise<DeliveryOutcome> {
    let result;
    if (channel === 'email') {
      if (!email) return { status: 'skipped', attempts: 0, reason: 'email not configured', sentAt: null };
      const content = emailContent(page);
      result = await withRetries(retry, () => email.send({ to: target, ...content }));
    } else if (channel === 'webhook') {
      const body = webhookBody(page);
      const secret = secretFor(page.workspaceId);
      result = await withRetries(retry, () => {
        const timestamp = Math.floor(now().getTime() / 1000);
        return postOnce(options.guard, {
          url: target,
          body,
          timeoutMs,
          headers: {
            [TIMESTAMP_HEADER]: String(timestamp),
            [SIGNATURE_HEADER]: signWebhook(secret, timestamp, body),
            'X-Statusvane-Delivery': page.deliveryId,
          },
        });
      });
    } else {
      const body = slackBody(page);
      result = await withRetries(retry, () => postOnce(options.guard, { url: target, body, timeoutMs, headers: {} }));
    }
    return result.ok
      ? { status: 'sent', attempts: result.attempts, reason: null, sentAt: now() }
      : { status: 'failed', attempts: result.attempts, reason: result.reason, sentAt: null };
  }

  return {
    deliver,
    close() {
      email?.close();
    },
  };
}
