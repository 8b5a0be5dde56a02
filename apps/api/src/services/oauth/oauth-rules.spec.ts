import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  OAuthError,
  parseResource,
  parseScope,
  redirectUriMatches,
  redirectUriProblem,
  verifierMatches,
} from './oauth-rules.js';

describe('redirect URIs', () => {
  it('registers https, loopback http and private-use schemes only', () => {
    for (const ok of [
      'https://app.example/cb',
      'http://127.0.0.1/cb',
      'http://[::1]:8080/cb',
      'http://localhost:1/cb',
      'com.example.app:/cb',
    ])
      expect([ok, redirectUriProblem(ok)]).toEqual([ok, null]);
    for (const bad of [
      'http://app.example/cb',
      'https://a.example/cb#x',
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'https://u:p@a.example/',
      'cb',
    ])
      expect([bad, typeof redirectUriProblem(bad)]).toEqual([bad, 'string']);
  });

  it('match exactly, except the port of a loopback URI', () => {
    const registered = ['http://127.0.0.1:3000/callback', 'https://app.example/cb'];
    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:49152/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1/callback')).toBe(true);
    for (const off of [
      'https://app.example/cB',
      'https://app.example/cb/',
      'https://app.example:444/cb',
      'http://127.0.0.1:3000/callbacK',
      'http://127.0.0.1:3000/callback?x=1',
      'http://127.0.0.2:3000/callback',
      'http://localhost:3000/callback',
      'http://127.0.0.1:3000/callback#f',
    ])
      expect([off, redirectUriMatches(registered, off)]).toEqual([off, false]);
  });
});

describe('scope, resource, PKCE', () => {
  it('reads scopes: read by default, write includes read, unknown is invalid_scope', () => {
    expect(parseScope(undefined)).toBe('read');
    expect(parseScope('')).toBe('read');
    expect(parseScope('read')).toBe('read');
    expect(parseScope('read write')).toBe('write');
    expect(() => parseScope('read admin')).toThrow(OAuthError);
  });

  it('names resources by PUBLIC_BASE_URL: /mcp or /api/v1 (absent), else invalid_target', () => {
    const base = 'https://status.example';
    expect(parseResource(base, undefined)).toBe('api');
    expect(parseResource(base, `${base}/api/v1`)).toBe('api');
    expect(parseResource(base, `${base}/mcp/`)).toBe('mcp');
    expect(() => parseResource(base, 'https://other.example/mcp')).toThrow(
      expect.objectContaining({ error: 'invalid_target' }),
    );
  });

  it('checks an S256 verifier against its challenge', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(verifierMatches(verifier, challenge)).toBe(true);
    expect(verifierMatches(`${verifier.slice(0, -1)}x`, challenge)).toBe(false);
    expect(verifierMatches('short', createHash('sha256').update('short').digest('base64url'))).toBe(false);
  });
});
