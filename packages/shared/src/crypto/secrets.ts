import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EncryptionKey } from '../config/config.js';

export interface Keyring {
  current: EncryptionKey;
  old: EncryptionKey[];
}

/** The version tag of self-describing ciphertexts. */
const FORMAT = 'v1';
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * AES-256-GCM with a fresh 96-bit nonce per value. Output: `v1:<keyId>:<base64(nonce | tag | ciphertext)>`, so every
 * value names the key that sealed it: two values of one row (a monitor's headers and body) can be sealed under
 * different keys, as happens when only one of them is replaced after a rotation.
 */
export function encryptSecret(plaintext: string, key: EncryptionKey): { ciphertext: string; keyId: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    ciphertext: `${FORMAT}:${key.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`,
    keyId: key.id,
  };
}

/**
 * The key id a stored value was sealed with: the one it names, or for a legacy value (bare base64, written before
 * values named their key) the id stored beside it (`legacyKeyId`, Monitor.encKeyId). Null when neither says.
 * Base64 has no ':', so the two formats cannot be confused.
 */
export function secretKeyId(stored: string, legacyKeyId?: string | null): string | null {
  if (!stored.startsWith(`${FORMAT}:`)) return legacyKeyId ?? null;
  const id = stored.slice(FORMAT.length + 1, stored.indexOf(':', FORMAT.length + 1));
  return KEY_ID.test(id) ? id : null;
}

/**
 * Decrypts with the key the value names (for a legacy value, `legacyKeyId`); throws if that key is not in the
 * keyring or the value was tampered with.
 */
export function decryptSecret(stored: string, legacyKeyId: string | null | undefined, ring: Keyring): string {
  const keyId = secretKeyId(stored, legacyKeyId);
  if (keyId === null) throw new Error('encrypted value names no key (malformed, or a legacy value without its key id)');
  const key = [ring.current, ...ring.old].find((k) => k.id === keyId);
  if (!key) throw new Error(`encryption key ${keyId} is not configured (set ENCRYPTION_OLD_KEYS during a rotation)`);
  const raw = Buffer.from(
    stored.startsWith(`${FORMAT}:`) ? stored.slice(stored.indexOf(':', FORMAT.length + 1) + 1) : stored,
    'base64',
  );
  if (raw.length < 28) throw new Error('encrypted value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * decryptSecret, or null when the value cannot be opened: its key is not in the keyring (retired before `secrets
 * rotate` moved the value under the current key) or the value is damaged. For readers that must answer anyway.
 */
export function tryDecryptSecret(stored: string, legacyKeyId: string | null | undefined, ring: Keyring): string | null {
  try {
    return decryptSecret(stored, legacyKeyId, ring);
  } catch {
    return null;
  }
}

/** Tokens are high-entropy, so a plain SHA-256 is a sufficient at-rest hash (no slow KDF needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A random URL-safe secret with `bytes` of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
