import { describe, expect, it } from '@jest/globals';
import { hashPassword, verifyPassword } from './password.js';

// Cheap parameters keep the spec fast; the format and the checks are the same as with the real ones.
const fast = { N: 1024, r: 8, p: 1 };

describe('status page passwords', () => {
  it('stores scrypt$N$r$p$salt$hash and verifies the right password only', async () => {
    const stored = await hashPassword('correct horse', fast);
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts: the same password hashes differently twice', async () => {
    const [a, b] = [await hashPassword('same password', fast), await hashPassword('same password', fast)];
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('uses strong default parameters', async () => {
    expect((await hashPassword('default cost')).split('$').slice(0, 4)).toEqual(['scrypt', '32768', '8', '1']);
  });

  it('never matches a malformed or hostile stored hash', async () => {
    const good = await hashPassword('pw-pw-pw-pw', fast);
    const parts = good.split('$');
    for (const stored of [
      '',
      'plain',
      'bcrypt$1$2$3$4$5',
      parts.slice(0, 5).join('$'),
      ['scrypt', 2 ** 24, 8, 1, parts[4], parts[5]].join('$'),
      ['scrypt', 1000, 8, 1, parts[4], parts[5]].join('$'),
      ['scrypt', 1024, 8, 1, '', parts[5]].join('$'),
      ['scrypt', 1024, 8, 1, parts[4], 'AAAA'].join('$'),
      ['scrypt', 'x', 8, 1, parts[4], parts[5]].join('$'),
    ]) {
      expect([stored, await verifyPassword('pw-pw-pw-pw', stored)]).toEqual([stored, false]);
    }
  });
});
