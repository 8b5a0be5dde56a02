import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EncryptionKey } from '../config/config.js';

export interface Keyring {
  current: EncryptionKey;
  old: EncryptionKey[];
}

/**
 * AES-256-GCM with a fresh 96-bit nonce per value. Output: base64(nonce | tag | ciphertext).
 * The key id is stored beside it (Monitor.encKeyId) so old rows stay readable after a rotation.
 */
export function encryptSecret(plaintext: string, key: EncryptionKey): { ciphertext: string; keyId: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: key.id };
}

/** Decrypts with the key the value names; throws if that key is not in the keyring or the value was tampered with. */
export function decryptSecret(ciphertext: string, keyId: string, ring: Keyring): string {
  const key = [ring.current, ...ring.old].find((k) => k.id === keyId);
  if (!key) throw new Error(`encryption key ${keyId} is not configured (set ENCRYPTION_OLD_KEYS during a rotation)`);
  const raw = Buffer.from(ciphertext, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
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
