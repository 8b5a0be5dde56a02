import { describe, expect, it } from '@jest/globals';
import { MAX_JSON_DEPTH, unstorableJson } from './json-body.js';

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe('unstorableJson', () => {
  it('accepts ordinary bodies, up to the depth limit', () => {
    expect(unstorableJson({ name: 'x', headers: { A: 'b' }, list: [1, 'two', null], jsonAssertion: { path: '$.a', operator: 'eq', value: 1 } })).toBeNull();
    expect(unstorableJson(undefined)).toBeNull();
    expect(unstorableJson(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it('refuses nesting past the limit without recursing (100,000 levels)', () => {
    expect(unstorableJson(nested(MAX_JSON_DEPTH + 1))).toEqual({ path: '(body)', message: `is nested more than ${MAX_JSON_DEPTH} levels deep` });
    expect(unstorableJson(nested(100_000))).not.toBeNull();
  });

  it('refuses NUL characters in strings and keys, naming where', () => {
    expect(unstorableJson({ name: 'a\u0000b' })).toEqual({ path: 'name', message: 'must not contain NUL (\\u0000) characters' });
    expect(unstorableJson({ metadata: { 'k\u0000': 'v' } })).toEqual({ path: 'metadata', message: 'keys must not contain NUL (\\u0000) characters' });
    expect(unstorableJson({ list: ['ok', 'x\u0000'] })?.path).toBe('list[1]');
    expect(unstorableJson('\u0000')?.path).toBe('(body)');
  });
});
