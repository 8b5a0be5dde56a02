import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The one signature of every webhook Statusvane sends (event webhooks, escalation webhook targets, status page
 * subscriber webhooks):
 *
 *   Statusvane-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * signed afresh on every attempt. What a receiver does (verifyWebhookSignature, and the README's snippet): recompute
 * over the raw body, compare in constant time, refuse a `t` more than 5 minutes away (a captured delivery replayed
 * later), and drop an id it has already handled (deliveries are at least once).
 */
export const SIGNATURE_HEADER = 'Statusvane-Signature';

const HEADER_SHAPE = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/;

const hmac = (secret: string, unixSeconds: number, body: string) =>
  createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');

/** The header value for `body` sent at `unixSeconds`. */
export function signWebhook(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${hmac(secret, unixSeconds, body)}`;
}

export function verifyWebhookSignature(
  secret: string,
  header: string,
  body: string,
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const m = HEADER_SHAPE.exec(header);
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

/**
 * The escalation webhook targets' secret, per workspace, derived from the deployment's current encryption key, so
 * none is stored: HMAC-SHA256(key, "webhook-signing:" + workspaceId), hex. `policy signing-secret --workspace
 * <slug>` prints it; rotating ENCRYPTION_KEY rotates it. (Event webhooks and subscriber webhooks have their own
 * random secret, shown once.)
 */
export function webhookSigningSecret(encryptionKey: Buffer, workspaceId: string): string {
  return createHmac('sha256', encryptionKey).update(`webhook-signing:${workspaceId}`).digest('hex');
}
