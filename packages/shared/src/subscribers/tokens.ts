import { randomBytes } from 'node:crypto';
import { encryptSecret, hashToken, type Keyring } from '../crypto/index.js';

/** A link token: 32 random bytes, base64url (43 characters); stored as SHA-256 for lookup and sealed for mails. */
export function newLinkToken(ring: Keyring): { token: string; hash: string; sealed: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token), sealed: encryptSecret(token, ring.current).ciphertext };
}

export const LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
