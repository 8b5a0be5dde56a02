import { describe, expect, it } from '@jest/globals';
import { statusvaneSignature, verifyStatusvaneSignature } from './signature.js';

describe('Statusvane-Signature', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">, verified in constant time with a tolerance', () => {
    const sig = statusvaneSignature('s3cret', 1_700_000_000, '{"a":1}');
    // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac s3cret
    expect(sig).toBe('t=1700000000,v1=1698a50bc74d1ff1db85c4e0a5297c2ad9fdba245d5737cdb789e4cc6e098940');
    expect(verifyStatusvaneSignature('s3cret', sig, '{"a":1}', 1_700_000_100_000)).toBe(true);
    expect(verifyStatusvaneSignature('s3cret', sig, '{"a":2}', 1_700_000_100_000)).toBe(false);
    expect(verifyStatusvaneSignature('other', sig, '{"a":1}', 1_700_000_100_000)).toBe(false);
    expect(verifyStatusvaneSignature('s3cret', sig, '{"a":1}', 1_700_001_000_000)).toBe(false);
    expect(verifyStatusvaneSignature('s3cret', 'v1=abc', '{"a":1}')).toBe(false);
  });
});
