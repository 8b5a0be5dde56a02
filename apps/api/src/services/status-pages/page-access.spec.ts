import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  ACCESS_TTL_MS,
  accessKey,
  issueAccessCookie,
  passwordFingerprint,
  readCookie,
  verifyAccessCookie,
} from './page-access.js';

const key = accessKey(randomBytes(32));
const page = { id: '7d0f6a55-3c1e-4b7a-9d7e-1f2a3b4c5d6e', passwordHash: 'scrypt$32768$8$1$salt$hash' };
const now = new Date('2026-05-01T10:00:00.000Z');

describe('status page access cookie', () => {
  it('carries the page id, the expiry and a password fingerprint, and verifies', () => {
    const { value, expires } = issueAccessCookie(key, page, now);
    const [version, id, exp, fp] = value.split('.');
    expect([version, id, fp]).toEqual(['v1', page.id, passwordFingerprint(page.passwordHash)]);
    expect(Number(exp) * 1000).toBe(now.getTime() + ACCESS_TTL_MS);
    expect(expires.getTime()).toBe(now.getTime() + ACCESS_TTL_MS);
    expect(verifyAccessCookie([key], page, value, now)).toBe(true);
  });

  it('expires: valid 1 s before the expiry, refused at it', () => {
    const { value, expires } = issueAccessCookie(key, page, now);
    expect(verifyAccessCookie([key], page, value, new Date(expires.getTime() - 1000))).toBe(true);
    expect(verifyAccessCookie([key], page, value, expires)).toBe(false);
  });

  it('is invalidated by a password change, and bound to its page', () => {
    const { value } = issueAccessCookie(key, page, now);
    expect(verifyAccessCookie([key], { ...page, passwordHash: 'scrypt$32768$8$1$salt2$hash2' }, value, now)).toBe(
      false,
    );
    expect(verifyAccessCookie([key], { ...page, id: '11111111-1111-4111-8111-111111111111' }, value, now)).toBe(false);
  });

  it('refuses a forged, tampered or foreign-key cookie', () => {
    const { value } = issueAccessCookie(key, page, now);
    const parts = value.split('.');
    const later = String(Number(parts[2]) + 86400);
    expect(verifyAccessCookie([key], page, [parts[0], parts[1], later, parts[3], parts[4]].join('.'), now)).toBe(false);
    expect(verifyAccessCookie([key], page, `${value.slice(0, -2)}AA`, now)).toBe(false);
    expect(verifyAccessCookie([accessKey(randomBytes(32))], page, value, now)).toBe(false);
    for (const junk of [undefined, '', 'x', 'v1....', 'a.b.c.d.e', 'x'.repeat(400)])
      expect(verifyAccessCookie([key], page, junk, now)).toBe(false);
  });

  it('accepts a cookie signed with an older key still in the keyring', () => {
    const old = accessKey(randomBytes(32));
    const { value } = issueAccessCookie(old, page, now);
    expect(verifyAccessCookie([key, old], page, value, now)).toBe(true);
  });

  it('reads one cookie from a Cookie header', () => {
    expect(readCookie('a=1; sv_page_access=v1.x.y; b=2', 'sv_page_access')).toBe('v1.x.y');
    expect(readCookie('a=1', 'sv_page_access')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });
});
