import { describe, expect, it } from '@jest/globals';
import { safeNext } from './next-path.js';

describe('safeNext', () => {
  it('keeps paths under /app/ and /oauth/authorize, with their query', () => {
    expect(safeNext('/app/acme/monitors?status=down')).toBe('/app/acme/monitors?status=down');
    expect(safeNext('/app/w/acme/monitors')).toBe('/app/w/acme/monitors');
    expect(safeNext('/oauth/authorize?client_id=x&state=y')).toBe('/oauth/authorize?client_id=x&state=y');
    expect(safeNext('/app/account')).toBe('/app/account');
  });

  it('refuses everything else', () => {
    for (const bad of [
      undefined,
      '',
      42,
      ['/app/x'],
      'https://evil.example/app/x',
      '//evil.example/app/x',
      '/\\evil.example/app',
      '\\\\evil.example',
      '/app',
      '/api/v1/monitors',
      '/app/../api/v1/tokens',
      '/app/%2e%2e/%2e%2e/api',
      '/oauth/authorize/../token',
      '/oauth/token',
      'javascript:alert(1)',
      '/app/x\nSet-Cookie: a=b',
      '/app/login',
      '/app/logout',
      `/app/${'x'.repeat(3000)}`,
    ])
      expect([bad, safeNext(bad)]).toEqual([bad, '/app']);
  });
});
