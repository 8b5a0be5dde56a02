import type { EncryptionKey } from '../config/config.js';
import { decryptSecret, encryptSecret, type Keyring } from '../crypto/secrets.js';
import type { PrismaClient } from '../db/prisma.js';
import { displayTarget, targetFromSecret, targetSecret, type EscalationTargetInput } from './channels.js';

/** The stored form of one escalation target: how it is shown, and the target itself encrypted. */
export interface SealedTarget {
  display: string;
  targetEnc: string;
  encKeyId: string;
}

/**
 * Webhook-like URLs and provider keys (PagerDuty routing keys, Opsgenie API keys, Telegram bot tokens) are
 * credentials, so every target is stored encrypted (AES-256-GCM, the key id beside it for rotation) as the one
 * string `targetSecret` gives, with a display form that is safe to show and log. Email addresses are encrypted
 * too: one rule for every channel, and the display form still shows them in full.
 */
export function sealTarget(target: EscalationTargetInput, key: EncryptionKey): SealedTarget {
  const { ciphertext, keyId } = encryptSecret(targetSecret(target), key);
  return { display: displayTarget(target), targetEnc: ciphertext, encKeyId: keyId };
}

/** A target row as read: ciphertext, or (rows from before encryption at rest, until the sweeper gets to them) plaintext. */
export interface StoredTarget {
  targetEnc: string | null;
  encKeyId: string | null;
  legacyTarget: string | null;
}

/**
 * The stored secret of a target (`targetSecret`'s string; `targetFromSecret` gives the target back). Throws when
 * its key is not in the keyring (set ENCRYPTION_OLD_KEYS during a rotation).
 */
export function openTarget(row: StoredTarget, keyring: Keyring): string {
  if (row.targetEnc !== null && row.encKeyId !== null) return decryptSecret(row.targetEnc, row.encKeyId, keyring);
  if (row.legacyTarget !== null) return row.legacyTarget;
  throw new Error('escalation target has neither ciphertext nor plaintext');
}

/**
 * Rows written before targets were encrypted at rest keep their plaintext until a process with the encryption key
 * converts them (a SQL migration has no key): encrypts each into targetEnc and clears the plaintext, in batches.
 * Idempotent, and cheap once done (one query that finds nothing); the escalation sweeper runs it
 * every round. Returns how many rows it converted.
 */
export async function encryptLegacyTargets(
  prisma: Pick<PrismaClient, 'escalationTarget'>,
  key: EncryptionKey,
  batch = 500,
): Promise<number> {
  let converted = 0;
  for (;;) {
    const rows = await prisma.escalationTarget.findMany({
      where: { legacyTarget: { not: null } },
      select: { id: true, channel: true, legacyTarget: true },
      take: batch,
    });
    for (const row of rows) {
      const sealed = sealTarget(targetFromSecret(row.channel, row.legacyTarget!), key);
      // Conditional on the plaintext still being there: two sweepers racing convert a row once.
      const { count } = await prisma.escalationTarget.updateMany({
        where: { id: row.id, legacyTarget: row.legacyTarget },
        data: { ...sealed, legacyTarget: null },
      });
      converted += count;
    }
    if (rows.length < batch) return converted;
  }
}
