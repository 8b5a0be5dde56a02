import { describe, expect, it } from '@jest/globals';
import { MAX_JSON_DEPTH, notAnObject, unstorableJson, verifyUtf8 } from './json-body.js';

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe('unstorableJson', () => {
  it('accepts ordinary bodies, up to the depth limit', () => {
    expect(
      unstorableJson({
        name: 'x',
        headers: { A: 'b' },
        list: [1, 'two', null],
        jsonAssertion: { path: '$.a', operator: 'eq', value: 1 },
      }),
    ).toBeNull();
    expect(unstorableJson(undefined)).toBeNull();
    expect(unstorableJson(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it('refuses nesting past the limit without recursing (100,000 levels)', () => {
    expect(unstorableJson(nested(MAX_JSON_DEPTH + 1))).toEqual({
      path: '(body)',
      message: `is nested more than ${MAX_JSON_DEPTH} levels deep`,
    });
    expect(unstorableJson(nested(100_000))).not.toBeNull();
  });

  it('refuses NUL characters in strings and keys, naming where', () => {
    expect(unstorableJson({ name: 'a\u0000b' })).toEqual({
      path: 'name',
      message: 'must not contain NUL (\\u0000) characters',
    });
    expect(unstorableJson({ metadata: { 'k\u0000': 'v' } })).toEqual({
      path: 'metadata',
      message: 'keys must not contain NUL (\\u0000) characters',
    });
    expect(unstorableJson({ list: ['ok', 'x\u0000'] })?.path).toBe('list[1]');
    expect(unstorableJson('\u0000')?.path).toBe('(body)');
  });
});

describe('unstorableJson: lone surrogates', () => {
  it('refuses a lone surrogate in a string or a key, naming where; accepts surrogate pairs', () => {
    const msg = 'must be well-formed Unicode (no lone surrogate such as \\ud800)';
    expect(unstorableJson({ name: 'emoji \ud83d\ude00 fine', metadata: { '\ud83d\ude00': 'ok' } })).toBeNull();
    expect(unstorableJson({ name: 'a\ud800' })).toEqual({ path: 'name', message: msg });
    expect(unstorableJson({ name: '\udc00b' })).toEqual({ path: 'name', message: msg });
    expect(unstorableJson({ name: '\ude00\ud83d' })).toEqual({ path: 'name', message: msg });
    expect(unstorableJson({ metadata: { env: 'x\udfff' } })).toEqual({ path: 'metadata.env', message: msg });
    expect(unstorableJson({ metadata: { ['k\ud800']: 'v' } })).toEqual({ path: 'metadata', message: `keys ${msg}` });
    expect(unstorableJson({ jsonAssertion: { path: '$.a', operator: 'eq', value: ['\ud800'] } })?.path).toBe(
      'jsonAssertion.value[0]',
    );
    expect(unstorableJson('\ud800')?.path).toBe('(body)');
  });
});

describe('verifyUtf8', () => {
  const check =
    (bytes: number[] | Buffer, charset: string | null = 'utf-8') =>
    () =>
      verifyUtf8(null, null, Buffer.from(bytes), charset);
  it('accepts valid UTF-8, including 4-byte sequences', () => {
    expect(check(Buffer.from('{"name":"h\u00e9llo \ud83d\ude00"}'))).not.toThrow();
    expect(check(Buffer.from('{}'), null)).not.toThrow();
  });
  it('refuses invalid UTF-8 bytes instead of decoding them to U+FFFD', () => {
    for (const bad of [
      [0x22, 0xff, 0x22],
      [0x22, 0xc3, 0x22],
      [0x22, 0xed, 0xa0, 0x80, 0x22],
      [0x22, 0xc0, 0xaf, 0x22],
      [0x22, 0xf8, 0x88, 0x80, 0x80, 0x80, 0x22],
    ]) {
      expect(check(bad)).toThrow(expect.objectContaining({ type: 'entity.verify.failed' }));
    }
  });
  it('refuses charsets other than UTF-8', () => {
    expect(check(Buffer.from('{}'), 'utf-16le')).toThrow(expect.objectContaining({ type: 'charset.unsupported' }));
    expect(check(Buffer.from('{}'), 'UTF-8')).not.toThrow();
  });
});

describe('notAnObject', () => {
  it('accepts objects and no body at all; names what any other JSON value is', () => {
    expect(notAnObject({})).toBeNull();
    expect(notAnObject({ name: 'x' })).toBeNull();
    expect(notAnObject(undefined)).toBeNull();
    for (const [value, kind] of [
      [null, 'null'],
      ['x', 'a string'],
      [42, 'a number'],
      [true, 'a boolean'],
      [[{ name: 'x' }], 'an array'],
    ] as const) {
      expect(notAnObject(value)).toEqual({ path: '(body)', message: `must be a JSON object, not ${kind}` });
    }
  });
});
