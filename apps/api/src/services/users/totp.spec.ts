import { describe, expect, it } from '@jest/globals';
import { base32Decode, base32Encode, hotp, newTotpSecret, otpauthUri, totpStep, verifyTotp } from './totp.js';

// RFC 6238 appendix B: the SHA-1 secret is the ASCII "12345678901234567890"; codes there have 8 digits, ours 6
// (the same number modulo 10^6).
const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');
const at = (seconds: number) => new Date(seconds * 1000);

describe('TOTP (RFC 6238)', () => {
  it('gives the RFC test vectors (their last six digits)', () => {
    const vectors: Array<[number, string]> = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, code] of vectors) expect(hotp(RFC_SECRET, totpStep(at(seconds)))).toBe(code.slice(2));
  });

  it('round-trips base32 and makes 160-bit secrets', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI').toString()).toBe('foobar');
    expect(base32Decode('mzxw 6ytb-oi').toString()).toBe('foobar');
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(secret)).toHaveLength(20);
  });

  it('accepts one step either side, and each step once', () => {
    const secret = base32Encode(RFC_SECRET);
    const now = at(1111111111);
    const step = totpStep(now);
    const codeOf = (s: number) => hotp(RFC_SECRET, s);
    expect(verifyTotp(secret, codeOf(step), now, null)).toBe(step);
    expect(verifyTotp(secret, codeOf(step - 1), now, null)).toBe(step - 1);
    expect(verifyTotp(secret, codeOf(step + 1), now, null)).toBe(step + 1);
    expect(verifyTotp(secret, codeOf(step - 2), now, null)).toBeNull();
    expect(verifyTotp(secret, codeOf(step + 2), now, null)).toBeNull();
    // Used once: that step and earlier ones are refused afterwards.
    expect(verifyTotp(secret, codeOf(step), now, step)).toBeNull();
    expect(verifyTotp(secret, codeOf(step - 1), now, step - 1)).toBeNull();
    expect(verifyTotp(secret, codeOf(step + 1), now, step)).toBe(step + 1);
    expect(verifyTotp(secret, ` ${codeOf(step).slice(0, 3)} ${codeOf(step).slice(3)} `, now, null)).toBe(step);
    for (const bad of ['', '12345', '1234567', 'abcdef', '12345a'])
      expect(verifyTotp(secret, bad, now, null)).toBeNull();
  });

  it('writes the otpauth URI authenticator apps read', () => {
    expect(otpauthUri({ secret: 'MZXW6YTBOI', account: 'ann@example.com', issuer: 'Statusvane' })).toBe(
      'otpauth://totp/Statusvane:ann%40example.com?secret=MZXW6YTBOI&issuer=Statusvane&algorithm=SHA1&digits=6&period=30',
    );
  });
});
