import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';

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
 * The escalation webhook targets' secret, per workspace, derived from the deployment's current encryption key and
 * the workspace's signing-secret generation, so none is stored: HMAC-SHA256(key, "webhook-signing:" + workspaceId),
 * hex, for generation 0 (never rotated: the derivation receivers were set up with before rotation existed), and
 * "webhook-signing:<workspaceId>:<generation>" after a rotation (POST /escalation-policies/signing-secret/rotate).
 * Rotating ENCRYPTION_KEY rotates it too. (Event webhooks and subscriber webhooks have their own random secret,
 * shown once.)
 */
export function webhookSigningSecret(encryptionKey: Buffer, workspaceId: string, generation = 0): string {
  const label = generation === 0 ? `webhook-signing:${workspaceId}` : `webhook-signing:${workspaceId}:${generation}`;
  return createHmac('sha256', encryptionKey).update(label).digest('hex');
}

/** A workspace's escalation webhook secret as pages are signed now. */
export type SigningSecrets = (workspaceId: string) => Promise<string>;

/**
 * The secrets of webhook pages, the workspace's generation read on every call (one indexed row per page attempt),
 * so that a rotation takes effect on the next page whatever process sends it. An unknown workspace is generation 0.
 */
export function workspaceSigningSecrets(
  prisma: Pick<PrismaClient, 'workspace'>,
  encryptionKey: Buffer,
): SigningSecrets {
  return async (workspaceId) => {
    const ws = await prisma.workspace.findUnique({
      where: { id: workspaceId },
      select: { signingSecretGeneration: true },
    });
    return webhookSigningSecret(encryptionKey, workspaceId, ws?.signingSecretGeneration ?? 0);
  };
}
