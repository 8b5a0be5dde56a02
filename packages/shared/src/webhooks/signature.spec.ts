import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { signWebhook, verifyWebhookSignature, webhookSigningSecret } from './signature.js';

describe('Statusvane-Signature', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">, which any receiver can recompute', () => {
    const sig = signWebhook('s3cret', 1_700_000_000, '{"a":1}');
    // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac s3cret
    expect(sig).toBe('t=1700000000,v1=1698a50bc74d1ff1db85c4e0a5297c2ad9fdba245d5737cdb789e4cc6e098940');
  });

  it('verifies in constant time and refuses a changed body, another secret, a stale time or a malformed header', () => {
    const now = 1_700_000_100_000;
    const sig = signWebhook('s3cret', 1_700_000_000, '{"a":1}');
    expect(verifyWebhookSignature('s3cret', sig, '{"a":1}', now)).toBe(true);
    expect(verifyWebhookSignature('s3cret', sig, '{"a":1}', 1_700_000_000_000 - 299_000)).toBe(true);
    expect(verifyWebhookSignature('s3cret', sig, '{"a":2}', now)).toBe(false);
    expect(verifyWebhookSignature('s3cret', sig, '{"a":1} ', now)).toBe(false);
    expect(verifyWebhookSignature('other', sig, '{"a":1}', now)).toBe(false);
    expect(verifyWebhookSignature('s3cret', sig, '{"a":1}', 1_700_000_301_000)).toBe(false);
    expect(verifyWebhookSignature('s3cret', sig.replace('t=1700000000', 't=1700000001'), '{"a":1}', now)).toBe(false);
    expect(verifyWebhookSignature('s3cret', 'v1=abc', '{"a":1}', now)).toBe(false);
    expect(verifyWebhookSignature('s3cret', `${sig},v0=00`, '{"a":1}', now)).toBe(false);
  });

  it("derives the escalation targets' secret: one stable hex secret per workspace and key", () => {
    const key = Buffer.alloc(32, 1);
    const ws = '6f1c2a4e-0000-4000-8000-000000000001';
    const secret = webhookSigningSecret(key, ws);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(webhookSigningSecret(key, ws)).toBe(secret);
    expect(webhookSigningSecret(key, '6f1c2a4e-0000-4000-8000-000000000002')).not.toBe(secret);
    expect(webhookSigningSecret(Buffer.alloc(32, 2), ws)).not.toBe(secret);
    expect(secret).toBe(createHmac('sha256', key).update(`webhook-signing:${ws}`).digest('hex'));
    // Generation 0 is the derivation from before rotations; each rotation gives another secret.
    expect(webhookSigningSecret(key, ws, 0)).toBe(secret);
    const rotated = [1, 2].map((g) => webhookSigningSecret(key, ws, g));
    expect(new Set([secret, ...rotated]).size).toBe(3);
  });
});
