import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `Statusvane-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (the format of the
 * spec's section 5), on every status page webhook delivery. Signed afresh on each attempt.
 */
export const STATUSVANE_SIGNATURE_HEADER = 'Statusvane-Signature';

export function statusvaneSignature(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

/** What a receiver does: parse, recompute, compare in constant time, refuse a timestamp too far from now. */
export function verifyStatusvaneSignature(
  secret: string,
  header: string,
  body: string,
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const m = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = Buffer.from(statusvaneSignature(secret, t, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
