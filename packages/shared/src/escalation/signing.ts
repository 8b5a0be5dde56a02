import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures. Every webhook delivery carries
 *   X-Statusvane-Timestamp: <unix seconds>
 *   X-Statusvane-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 * The secret is per workspace, derived from the deployment's current encryption key, so no secret is stored and
 * none can leak from the database: HMAC-SHA256(key, "webhook-signing:" + workspaceId), hex. The admin command
 * `policy signing-secret --workspace <slug>` prints it for receivers. Rotating ENCRYPTION_KEY rotates it.
 */
export const SIGNATURE_HEADER = 'X-Statusvane-Signature';
export const TIMESTAMP_HEADER = 'X-Statusvane-Timestamp';

export function webhookSigningSecret(encryptionKey: Buffer, workspaceId: string): string {
  return createHmac('sha256', encryptionKey).update(`webhook-signing:${workspaceId}`).digest('hex');
}

/** `v1=<hex>` over `<timestamp>.<body>`. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does (and the tests): recompute, compare in constant time, and refuse timestamps more than
 * `toleranceSeconds` away from now (replays).
 */
export function verifyWebhookSignature(
  secret: string,
  input: { timestamp: string | number; body: string; signature: string },
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const ts = Number(input.timestamp);
  if (!Number.isInteger(ts) || Math.abs(now / 1000 - ts) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, ts, input.body));
  const given = Buffer.from(input.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
