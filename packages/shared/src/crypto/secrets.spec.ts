import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { keyId } from '../config/config.js';
import { decryptSecret, encryptSecret, secretKeyId, type Keyring } from './secrets.js';

const makeKey = () => {
  const key = randomBytes(32);
  return { id: keyId(key), key };
};

/** The format written before values named their key: bare base64(nonce | tag | ciphertext). */
function legacyEncrypt(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

describe('encrypted secrets', () => {
  const oldKey = makeKey();
  const newKey = makeKey();
  const ring: Keyring = { current: newKey, old: [oldKey] };

  it('round-trips, and every value names the key that sealed it', () => {
    const { ciphertext, keyId: id } = encryptSecret('s3cret', oldKey);
    expect(id).toBe(oldKey.id);
    expect(ciphertext).toMatch(new RegExp(`^v1:${oldKey.id}:[A-Za-z0-9+/=]+$`));
    expect(ciphertext).not.toContain('s3cret');
    expect(secretKeyId(ciphertext)).toBe(oldKey.id);
    expect(decryptSecret(ciphertext, null, ring)).toBe('s3cret');
  });

  it('ignores a stale key id stored beside a value that names its own (the rotation bug)', () => {
    const body = encryptSecret('body', oldKey).ciphertext;
    // The row's encKeyId was moved to the new key when only the headers were replaced.
    expect(decryptSecret(body, newKey.id, ring)).toBe('body');
  });

  it('still reads legacy values with the key id stored beside them', () => {
    const legacy = legacyEncrypt('legacy', oldKey.key);
    expect(secretKeyId(legacy, oldKey.id)).toBe(oldKey.id);
    expect(secretKeyId(legacy)).toBeNull();
    expect(decryptSecret(legacy, oldKey.id, ring)).toBe('legacy');
    expect(() => decryptSecret(legacy, null, ring)).toThrow(/names no key/);
  });

  it('refuses a value under a key the keyring lacks, a tampered value, and a truncated one', () => {
    const stray = makeKey();
    expect(() => decryptSecret(encryptSecret('x', stray).ciphertext, null, ring)).toThrow(
      new RegExp(`key ${stray.id} is not configured`),
    );
    const sealed = encryptSecret('tamper me', newKey).ciphertext;
    const raw = Buffer.from(sealed.split(':')[2]!, 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => decryptSecret(`v1:${newKey.id}:${raw.toString('base64')}`, null, ring)).toThrow();
    expect(() => decryptSecret(`v1:${newKey.id}:AAAA`, null, ring)).toThrow(/truncated/);
    expect(secretKeyId('v1:bad id!:AAAA')).toBeNull();
  });
});
