import { signWebhook, verifyWebhookSignature } from '../escalation/signing.js';

/**
 * `Statusvane-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (the format of the
 * spec's section 5), on every status page webhook delivery. Signed afresh on each attempt. The HMAC is the
 * escalation webhooks' (`signWebhook`); only the header that carries it differs.
 */
export const STATUSVANE_SIGNATURE_HEADER = 'Statusvane-Signature';

export function statusvaneSignature(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},${signWebhook(secret, unixSeconds, body)}`;
}

/** What a receiver does: parse, then verify as any Statusvane webhook (constant time, bounded clock skew). */
export function verifyStatusvaneSignature(
  secret: string,
  header: string,
  body: string,
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const m = /^t=(\d{1,12}),(v1=[0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  return verifyWebhookSignature(secret, { timestamp: m[1]!, body, signature: m[2]! }, now, toleranceSeconds);
}
