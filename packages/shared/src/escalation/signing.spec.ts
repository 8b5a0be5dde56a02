import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { signWebhook, verifyWebhookSignature, webhookSigningSecret } from './signing.js';

describe('webhook signing', () => {
  const key = Buffer.alloc(32, 1);
  const ws = '6f1c2a4e-0000-4000-8000-000000000001';

  it('derives one stable hex secret per workspace and key', () => {
    const secret = webhookSigningSecret(key, ws);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(webhookSigningSecret(key, ws)).toBe(secret);
    expect(webhookSigningSecret(key, '6f1c2a4e-0000-4000-8000-000000000002')).not.toBe(secret);
    expect(webhookSigningSecret(Buffer.alloc(32, 2), ws)).not.toBe(secret);
    expect(secret).toBe(createHmac('sha256', key).update(`webhook-signing:${ws}`).digest('hex'));
  });

  it('signs "<timestamp>.<body>" as v1=<hex HMAC-SHA256>, which any receiver can recompute', () => {
    const body = '{"type":"incident.escalation"}';
    expect(signWebhook('s', 1_700_000_000, body)).toBe(
      `v1=${createHmac('sha256', 's').update(`1700000000.${body}`).digest('hex')}`,
    );
  });

  it('verifies in constant time and refuses a changed body, another secret, or a stale timestamp', () => {
    const now = 1_700_000_000_000;
    const ts = now / 1000;
    const signature = signWebhook('s', ts, 'body');
    expect(verifyWebhookSignature('s', { timestamp: ts, body: 'body', signature }, now)).toBe(true);
    expect(verifyWebhookSignature('s', { timestamp: String(ts), body: 'body', signature }, now + 299_000)).toBe(true);
    expect(verifyWebhookSignature('s', { timestamp: ts, body: 'body ', signature }, now)).toBe(false);
    expect(verifyWebhookSignature('t', { timestamp: ts, body: 'body', signature }, now)).toBe(false);
    expect(verifyWebhookSignature('s', { timestamp: ts, body: 'body', signature }, now + 301_000)).toBe(false);
    expect(verifyWebhookSignature('s', { timestamp: 'soon', body: 'body', signature }, now)).toBe(false);
    expect(verifyWebhookSignature('s', { timestamp: ts, body: 'body', signature: 'v1=00' }, now)).toBe(false);
  });
});
