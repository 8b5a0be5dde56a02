import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How long a visitor stays in after typing the right password. */
export const ACCESS_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const ACCESS_COOKIE = 'sv_page_access';
const HKDF_INFO = 'statusvane/status-page-access-cookie/v1';
const VERSION = 'v1';

/**
 * The cookie-signing key, derived from an encryption key with HKDF-SHA256 and a fixed label: no new secret to
 * configure, and the derived key is useless for decrypting monitor secrets (and vice versa).
 */
export function accessKey(encryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), HKDF_INFO, 32));
}

/**
 * A short fingerprint of the stored password hash. Bound into every cookie, so setting or clearing a password
 * invalidates all cookies issued before; it reveals nothing usable about the hash itself.
 */
export function passwordFingerprint(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('base64url').slice(0, 16);
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

/** `v1.<pageId>.<expiry unix seconds>.<fingerprint>.<HMAC-SHA256 of the rest, base64url>` */
export function issueAccessCookie(
  key: Buffer,
  page: { id: string; passwordHash: string },
  now: Date,
  ttlMs = ACCESS_TTL_MS,
): { value: string; expires: Date } {
  const expires = new Date(Math.floor((now.getTime() + ttlMs) / 1000) * 1000);
  const payload = [VERSION, page.id, String(expires.getTime() / 1000), passwordFingerprint(page.passwordHash)].join(
    '.',
  );
  return { value: `${payload}.${mac(key, payload).toString('base64url')}`, expires };
}

/**
 * True when `value` was issued by us (any of `keys`, so an encryption key rotation keeps visitors in while the
 * old key is configured), for this page, under its current password, and has not expired.
 */
export function verifyAccessCookie(
  keys: readonly Buffer[],
  page: { id: string; passwordHash: string },
  value: string | undefined,
  now: Date,
): boolean {
  if (!value || value.length > 300) return false;
  const parts = value.split('.');
  if (parts.length !== 5) return false;
  const [version, pageId, exp, fingerprint, sig] = parts as [string, string, string, string, string];
  if (version !== VERSION || pageId !== page.id || fingerprint !== passwordFingerprint(page.passwordHash)) return false;
  if (!/^\d{1,12}$/.test(exp) || Number(exp) * 1000 <= now.getTime()) return false;
  const given = Buffer.from(sig, 'base64url');
  const payload = parts.slice(0, 4).join('.');
  return keys.some((k) => {
    const expected = mac(k, payload);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Reads one cookie from a Cookie header (no dependency needed for one name). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
