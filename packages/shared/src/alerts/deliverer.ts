import { DEFAULT_ALERT_PROVIDERS, type AlertProviders } from '../config/config.js';
import { targetFromSecret, type DeliveryChannel, type ChannelTargetInput } from '../escalation/channels.js';
import { SIGNATURE_HEADER, signWebhook, type SigningSecrets } from '../webhooks/signature.js';
import type { SsrfGuard } from '../ssrf/index.js';
import { createEmailSender, type EmailSender } from './email.js';
import { postOnce } from './http-post.js';
import { emailContent, type Message, type Notice, type Page } from './page.js';
import { httpRequestFor } from './requests.js';
import { DEFAULT_RETRY, withRetries, type RetryOutcome, type RetryPolicy } from './retry.js';

export type Channel = DeliveryChannel;

/** The final state of one delivery (or notice) row. */
export interface DeliveryOutcome {
  status: 'sent' | 'failed' | 'skipped';
  attempts: number;
  reason: string | null;
  sentAt: Date | null;
  /** The provider's last HTTP answer, when there was one (HTTP channels). */
  statusCode?: number;
}

export interface Deliverer {
  /** Sends a page to one target, given as its stored secret (`targetSecret`: a URL, an address, a key ...). */
  deliver(channel: Channel, target: string, page: Page): Promise<DeliveryOutcome>;
  /** Sends an acknowledged / resolved notice to one target that was paged. */
  notify(channel: Channel, target: string, notice: Notice): Promise<DeliveryOutcome>;
  close(): void;
}

export interface DelivererOptions {
  guard: SsrfGuard;
  /** Each workspace's webhook signing secret as of now (workspaceSigningSecrets): read on every attempt. */
  signingSecret: SigningSecrets;
  /** null: email deliveries are recorded `skipped` with reason `email not configured`. */
  smtp: { url: string; from: string } | null;
  /** Where pagerduty, opsgenie and telegram send (configuration: PAGERDUTY_EVENTS_URL ...); default: the providers. */
  providers?: AlertProviders;
  timeoutMs?: number;
  retry?: RetryPolicy;
  now?: () => Date;
}

/**
 * Sends pages and notices. Webhook: the JSON page, signed as every Statusvane webhook (`Statusvane-Signature:
 * t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, signed afresh on every attempt), with `Statusvane-Delivery` as an
 * idempotency key. Slack, Teams, Discord, ntfy, PagerDuty, Opsgenie, Telegram: the
 * provider's format (requests.ts). Email: SMTP. Every channel retries transient failures (DEFAULT_RETRY) with a
 * timeout per attempt.
 */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retry = options.retry ?? DEFAULT_RETRY;
  const now = options.now ?? (() => new Date());
  const providers = options.providers ?? DEFAULT_ALERT_PROVIDERS;
  const email: EmailSender | null = options.smtp ? createEmailSender(options.smtp, timeoutMs) : null;

  function attempts(target: ChannelTargetInput, m: Message): Promise<RetryOutcome> | null {
    if (target.channel === 'email') {
      if (!email) return null;
      const content = emailContent(m);
      return withRetries(retry, () => email.send({ to: target.target, ...content }));
    }
    const request = httpRequestFor(target, m, providers);
    const workspaceId = m.kind === 'page' ? m.page.workspaceId : m.notice.workspaceId;
    const deliveryId = m.kind === 'page' ? m.page.deliveryId : m.notice.noticeId;
    return withRetries(retry, async () => {
      const headers = { ...request.headers };
      if (target.channel === 'webhook') {
        // The secret of this attempt: a rotation meanwhile signs the retry with the new one.
        const secret = await options.signingSecret(workspaceId).catch(() => null);
        if (secret === null) return { ok: false, reason: 'signing_secret_unavailable', retryable: true };
        const timestamp = Math.floor(now().getTime() / 1000);
        headers[SIGNATURE_HEADER] = signWebhook(secret, timestamp, request.body);
        headers['Statusvane-Delivery'] = deliveryId;
      }
      return postOnce(request.guarded ? options.guard : null, {
        url: request.url,
        body: request.body,
        headers,
        timeoutMs,
      });
    });
  }

  async function send(channel: Channel, secret: string, m: Message): Promise<DeliveryOutcome> {
    let target: ChannelTargetInput;
    try {
      target = targetFromSecret(channel, secret);
    } catch {
      return { status: 'failed', attempts: 0, reason: 'target_unreadable', sentAt: null };
    }
    const pending = attempts(target, m);
    if (!pending) return { status: 'skipped', attempts: 0, reason: 'email not configured', sentAt: null };
    const result = await pending;
    const status = result.statusCode === undefined ? {} : { statusCode: result.statusCode };
    return result.ok
      ? { status: 'sent', attempts: result.attempts, reason: null, sentAt: now(), ...status }
      : { status: 'failed', attempts: result.attempts, reason: result.reason, sentAt: null, ...status };
  }

  return {
    deliver: (channel, target, page) => send(channel, target, { kind: 'page', page }),
    notify: (channel, target, notice) => send(channel, target, { kind: 'notice', notice }),
    close() {
      email?.close();
    },
  };
}
