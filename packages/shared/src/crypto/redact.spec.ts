import { describe, expect, it } from '@jest/globals';
import { REDACTED, redactedJson, redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it("redacts a heartbeat's pingUrl in event data, and leaves null and every other field alone", () => {
    const heartbeat = {
      id: 'm',
      type: 'heartbeat',
      pingUrl: 'https://x/ping/s3cret',
      headerNames: ['A'],
      hasBody: true,
    };
    expect(redactSecrets({ monitor: heartbeat })).toEqual({ monitor: { ...heartbeat, pingUrl: REDACTED } });
    const http = { id: 'm', type: 'http', pingUrl: null, metadata: { team: 'ops' } };
    expect(redactSecrets({ monitor: http })).toEqual({ monitor: http });
  });

  it('redacts secret names at any depth and in any case, and keeps an audit change as { from, to }', () => {
    expect(
      redactSecrets({
        headers: { from: null, to: { Authorization: 'Bearer x' } },
        pingUrl: { from: 'https://x/ping/a', to: 'https://x/ping/b' },
        steps: [{ targets: [{ routingKey: 'k', botToken: 't', apiKey: 'a', target: 'https://hooks/x' }] }],
        nested: { clientSecret: 's', password: 'p', keyword: 'kept' },
      }),
    ).toEqual({
      headers: { from: null, to: REDACTED },
      pingUrl: { from: REDACTED, to: REDACTED },
      steps: [{ targets: [{ routingKey: REDACTED, botToken: REDACTED, apiKey: REDACTED, target: 'https://hooks/x' }] }],
      nested: { clientSecret: REDACTED, password: REDACTED, keyword: 'kept' },
    });
  });

  it('redactedJson: the JSON of what redactSecrets gives, made in one pass (a date stays its ISO text)', () => {
    const value = {
      monitor: { id: 'm', pingUrl: 'https://x/ping/s3cret', metadata: { team: 'ops' }, headerNames: ['A'] },
      headers: { from: null, to: { Authorization: 'Bearer x' } },
      steps: [{ targets: [{ routingKey: 'k', target: 'https://hooks/x' }] }],
      nested: { clientSecret: 's', password: null, keyword: 'kept' },
    };
    expect(JSON.parse(redactedJson(value))).toEqual(redactSecrets(value));
    expect(redactedJson({ at: new Date(Date.UTC(2026, 0, 1)), token: 'x' })).toBe(
      `{"at":"2026-01-01T00:00:00.000Z","token":"${REDACTED}"}`,
    );
  });
});
