import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type JsonAssertion,
  JsonPathSyntaxError,
  evaluateJsonAssertion,
  formatJsonPath,
  jsonEqual,
  parseJsonPath,
  resolveJsonPath,
  toComparableNumber,
} from './json-assertion.js';

describe('parseJsonPath', () => {
  it.each<[string, Array<string | number>]>([
    ['', []],
    ['$', []],
    ['.', []],
    ['  $  ', []],
    ['a', ['a']],
    ['$.a', ['a']],
    ['.a', ['a']],
    ['data.items[0].status', ['data', 'items', 0, 'status']],
    ['$.data.items[0].status', ['data', 'items', 0, 'status']],
    ['$.a["b.c"]', ['a', 'b.c']],
    ["$.a['b.c']", ['a', 'b.c']],
    ['[0].x', [0, 'x']],
    ['$[0].x', [0, 'x']],
    ['$[0][1][2]', [0, 1, 2]],
    ['a[ 3 ]', ['a', 3]],
    ['a[ "k" ]', ['a', 'k']],
    ['a.0', ['a', '0']],
    ['a["0"]', ['a', '0']],
    ['a[""]', ['a', '']],
    ['a["with \\"quote\\""]', ['a', 'with "quote"']],
    ["a['it\\'s']", ['a', "it's"]],
    ['a["back\\\\slash"]', ['a', 'back\\slash']],
    ['a["]"]', ['a', ']']],
    ['a["[0]"]', ['a', '[0]']],
    ['$oid', ['$oid']],
    ['$oid.x', ['$oid', 'x']],
    ['$.$oid', ['$oid']],
    ['key with spaces.x', ['key with spaces', 'x']],
    ['ünïcödé.ключ', ['ünïcödé', 'ключ']],
    ['a-b.c_d', ['a-b', 'c_d']],
    ['["a"]["b"]', ['a', 'b']],
    ['$["a"].b[10]', ['a', 'b', 10]],
  ])('parses %j', (path, expected) => {
    expect(parseJsonPath(path)).toEqual(expected);
  });

  it.each([
    'a..b',
    'a.',
    '$.',
    '$..a',
    'a[',
    'a[]',
    'a[-1]',
    'a[*]',
    'a[1.5]',
    'a[0',
    'a["b"',
    'a["b]',
    'a[\'b"]',
    'a[0]b',
    'a["b"]c',
    'a]',
    'a.b]',
    '[0]]',
    'a[0x1]',
    'a[99999999999999999999]',
    'a["x\\',
  ])('rejects %j', (path) => {
    expect(() => parseJsonPath(path)).toThrow(JsonPathSyntaxError);
  });

  it('reports the position of the error', () => {
    try {
      parseJsonPath('a..b');
      throw new Error('not thrown');
    } catch (err) {
      expect(err).toBeInstanceOf(JsonPathSyntaxError);
      expect((err as JsonPathSyntaxError).position).toBe(2);
      expect((err as Error).message).toMatch(/empty name at position 2/);
    }
  });

  it('round-trips through formatJsonPath (property)', () => {
    const segment = fc.oneof(fc.string(), fc.nat({ max: 1_000_000 }));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        expect(parseJsonPath(formatJsonPath(segments))).toEqual(segments);
      }),
    );
  });

  it('formats paths canonically', () => {
    expect(formatJsonPath([])).toBe('$');
    expect(formatJsonPath(['data', 'items', 0, 'b.c', 'x y', '$ok'])).toBe('$.data.items[0]["b.c"]["x y"].$ok');
  });
});

describe('resolveJsonPath', () => {
  const doc = {
    data: {
      items: [{ status: 'ok' }, { status: 'down' }],
      '0': 'zero',
      'b.c': 1,
      nothing: null,
      f: false,
      z: 0,
      e: '',
    },
    list: [10, 20, 30],
  };

  it.each<[string, unknown]>([
    ['$', doc],
    ['data.items[0].status', 'ok'],
    ['data.items.1.status', 'down'],
    ['$.data["b.c"]', 1],
    ['data[0]', 'zero'],
    ['data["0"]', 'zero'],
    ['data.0', 'zero'],
    ['data.nothing', null],
    ['data.f', false],
    ['data.z', 0],
    ['data.e', ''],
    ['list[2]', 30],
    ['list["1"]', 20],
  ])('resolves %s', (path, value) => {
    expect(resolveJsonPath(doc, parseJsonPath(path))).toEqual({ found: true, value });
  });

  it.each<[string, number]>([
    ['missing', 0],
    ['data.items[2]', 2],
    ['data.items[0].status.deeper', 4],
    ['list.01', 1],
    ['list.length', 1],
    ['data.nothing.x', 2],
    ['data.toString', 1],
    ['data.__proto__', 1],
    ['constructor', 0],
    ['data.z.x', 2],
  ])('does not resolve %s', (path, missingAt) => {
    expect(resolveJsonPath(doc, parseJsonPath(path))).toEqual({ found: false, missingAt });
  });

  it('treats a canonical numeric dot name as an array index but not a padded one', () => {
    expect(resolveJsonPath([['a']], parseJsonPath('0.0'))).toEqual({ found: true, value: 'a' });
    expect(resolveJsonPath(['a'], parseJsonPath('00'))).toEqual({ found: false, missingAt: 0 });
  });

  it('works on a scalar root', () => {
    expect(resolveJsonPath(42, [])).toEqual({ found: true, value: 42 });
    expect(resolveJsonPath(42, ['a'])).toEqual({ found: false, missingAt: 0 });
    expect(resolveJsonPath('str', [0])).toEqual({ found: false, missingAt: 0 });
  });
});

describe('jsonEqual', () => {
  it.each<[unknown, unknown, boolean]>([
    [1, 1, true],
    [1, 1.0, true],
    [1, '1', false],
    ['a', 'a', true],
    [true, 'true', false],
    [null, null, true],
    [null, false, false],
    [0, false, false],
    ['', null, false],
    [[1, 2], [1, 2], true],
    [[1, 2], [2, 1], false],
    [[1], [1, 1], false],
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [{ a: undefined }, { b: undefined }, false],
    [{}, [], false],
    [[], {}, false],
    [{}, null, false],
  ])('jsonEqual(%j, %j) = %s', (a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });

  it('is reflexive on JSON values and agrees with a canonical serialisation (property)', () => {
    const canon = (v: unknown): string =>
      JSON.stringify(v, (_k, x: unknown) =>
        x !== null && typeof x === 'object' && !Array.isArray(x)
          ? Object.fromEntries(
              Object.entries(x as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)),
            )
          : x,
      );
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(jsonEqual(a, structuredClone(a))).toBe(true);
        // -0 and 0 are the same JSON number; canonical serialisation agrees.
        expect(jsonEqual(a, b)).toBe(canon(a) === canon(b));
      }),
    );
  });
});

describe('toComparableNumber', () => {
  it.each<[unknown, number | null]>([
    [5, 5],
    [-1.5, -1.5],
    ['12', 12],
    [' 12 ', 12],
    ['-1.5e3', -1500],
    ['+7', 7],
    ['.5', 0.5],
    ['5.', 5],
    ['0x10', null],
    ['', null],
    ['  ', null],
    ['12px', null],
    ['Infinity', null],
    ['NaN', null],
    ['1e999', null],
    [true, null],
    [null, null],
    [[1], null],
    [{}, null],
  ])('%j -> %j', (v, n) => {
    expect(toComparableNumber(v)).toBe(n);
  });
});

describe('evaluateJsonAssertion', () => {
  const doc = {
    status: 'ok',
    code: 200,
    codeStr: '200',
    ratio: 0.75,
    count: '42',
    flag: true,
    nothing: null,
    tags: ['a', 'b', 'prod'],
    nums: [1, 2, 3],
    objs: [{ id: 1 }, { id: 2 }],
    nested: { deep: { value: 'yes' } },
    text: 'Hello, World',
    'b.c': 'dotted',
  };
  const ok = { ok: true };
  const check = (path: string, operator: JsonAssertion['operator'], value?: unknown) =>
    evaluateJsonAssertion(doc, value === undefined ? { path, operator } : { path, operator, value });

  describe('exists / notExists', () => {
    it('exists passes for present keys, including null and falsy values', () => {
      for (const p of ['status', 'nothing', 'flag', 'nested.deep', '$.tags[2]', '$["b.c"]', '$'])
        expect(check(p, 'exists')).toEqual(ok);
    });
    it('exists fails for missing paths with the first missing segment named', () => {
      expect(check('nested.deep.missing.x', 'exists')).toEqual({
        ok: false,
        detail: 'nested.deep.missing.x not found (no $.nested.deep.missing)',
      });
      expect(check('tags[3]', 'exists')).toEqual({ ok: false, detail: 'tags[3] not found (no $.tags[3])' });
    });
    it('notExists passes only when the path does not resolve', () => {
      expect(check('missing', 'notExists')).toEqual(ok);
      expect(check('nested.deep.missing.x', 'notExists')).toEqual(ok);
      expect(check('nothing', 'notExists')).toEqual({ ok: false, detail: 'nothing exists (null)' });
      expect(check('status', 'notExists')).toEqual({ ok: false, detail: 'status exists ("ok")' });
    });
    it('ignores a value for exists / notExists', () => {
      expect(check('status', 'exists', 'whatever')).toEqual(ok);
      expect(check('missing', 'notExists', 1)).toEqual(ok);
    });
  });

  describe('a path that does not resolve fails every other operator', () => {
    it.each(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'notContains', 'exists'] as const)('%s', (op) => {
      const r = check('missing.path', op, 1);
      expect(r.ok).toBe(false);
      expect(r).toEqual({ ok: false, detail: 'missing.path not found (no $.missing)' });
    });
  });

  describe('eq / neq', () => {
    it.each<[string, unknown, boolean]>([
      ['status', 'ok', true],
      ['status', 'OK', false],
      ['code', 200, true],
      ['code', '200', false],
      ['codeStr', '200', true],
      ['codeStr', 200, false],
      ['flag', true, true],
      ['flag', 'true', false],
      ['nothing', null, true],
      ['nothing', 'null', false],
      ['tags', ['a', 'b', 'prod'], true],
      ['tags', ['b', 'a', 'prod'], false],
      ['nested', { deep: { value: 'yes' } }, true],
      ['nested.deep', { value: 'no' }, false],
      ['ratio', 0.75, true],
    ])('%s eq %j -> %s', (path, value, pass) => {
      expect(check(path, 'eq', value).ok).toBe(pass);
      expect(check(path, 'neq', value).ok).toBe(!pass);
    });
    it('explains a mismatch', () => {
      expect(check('status', 'eq', 'degraded')).toEqual({ ok: false, detail: 'status: expected "degraded", got "ok"' });
      expect(check('code', 'neq', 200)).toEqual({ ok: false, detail: 'code: expected anything but 200' });
    });
  });

  describe('gt / gte / lt / lte', () => {
    it.each<[string, 'gt' | 'gte' | 'lt' | 'lte', unknown, boolean]>([
      ['code', 'gt', 199, true],
      ['code', 'gt', 200, false],
      ['code', 'gte', 200, true],
      ['code', 'gte', 201, false],
      ['code', 'lt', 201, true],
      ['code', 'lt', 200, false],
      ['code', 'lte', 200, true],
      ['code', 'lte', 199, false],
      ['count', 'gt', 41, true],
      ['count', 'lte', 42, true],
      ['codeStr', 'gte', '200', true],
      ['ratio', 'lt', '0.8', true],
      ['ratio', 'gt', 0.75, false],
    ])('%s %s %j -> %s', (path, op, value, pass) => {
      expect(check(path, op, value).ok).toBe(pass);
    });
    it('fails on non-numeric actual values', () => {
      expect(check('status', 'gt', 1)).toEqual({ ok: false, detail: 'status: "ok" is not a number' });
      expect(check('flag', 'gte', 0)).toEqual({ ok: false, detail: 'flag: true is not a number' });
      expect(check('nothing', 'lt', 1)).toEqual({ ok: false, detail: 'nothing: null is not a number' });
      expect(check('nums', 'lt', 10).ok).toBe(false);
    });
    it('fails on a non-numeric comparison value', () => {
      expect(check('code', 'gt', 'abc')).toEqual({ ok: false, detail: 'code: comparison value "abc" is not a number' });
      expect(check('code', 'gt', null).ok).toBe(false);
    });
    it('explains a failed comparison', () => {
      expect(check('code', 'lt', 100)).toEqual({ ok: false, detail: 'code: expected < 100, got 200' });
    });
    it('agrees with plain numeric comparison (property)', () => {
      fc.assert(
        fc.property(
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          (a, b) => {
            const d = { v: a };
            expect(evaluateJsonAssertion(d, { path: 'v', operator: 'gt', value: b }).ok).toBe(a > b);
            expect(evaluateJsonAssertion(d, { path: 'v', operator: 'gte', value: b }).ok).toBe(a >= b);
            expect(evaluateJsonAssertion(d, { path: 'v', operator: 'lt', value: b }).ok).toBe(a < b);
            expect(evaluateJsonAssertion(d, { path: 'v', operator: 'lte', value: b }).ok).toBe(a <= b);
            // Numeric strings on the actual side behave the same.
            expect(evaluateJsonAssertion({ v: String(a) }, { path: 'v', operator: 'gt', value: b }).ok).toBe(
              Number(String(a)) > b,
            );
          },
        ),
      );
    });
  });

  describe('contains / notContains', () => {
    it.each<[string, unknown, boolean]>([
      ['text', 'World', true],
      ['text', 'world', false],
      ['text', '', true],
      ['tags', 'prod', true],
      ['tags', 'pro', false],
      ['nums', 2, true],
      ['nums', '2', false],
      ['objs', { id: 2 }, true],
      ['objs', { id: 3 }, false],
    ])('%s contains %j -> %s', (path, value, pass) => {
      expect(check(path, 'contains', value).ok).toBe(pass);
      expect(check(path, 'notContains', value).ok).toBe(!pass);
    });
    it('needs a string value for string containment', () => {
      expect(check('codeStr', 'contains', 2)).toEqual({
        ok: false,
        detail: 'codeStr: contains on a string needs a string value, got number',
      });
      expect(check('codeStr', 'notContains', 2).ok).toBe(false);
    });
    it('fails on actual values that are neither strings nor arrays', () => {
      expect(check('code', 'contains', '2')).toEqual({
        ok: false,
        detail: 'code: contains needs a string or an array, got number',
      });
      expect(check('nested', 'notContains', 'x')).toEqual({
        ok: false,
        detail: 'nested: notContains needs a string or an array, got object',
      });
      expect(check('nothing', 'contains', 'x').ok).toBe(false);
    });
    it('explains a failure', () => {
      expect(check('tags', 'contains', 'staging')).toEqual({
        ok: false,
        detail: 'tags: ["a","b","prod"] does not contain "staging"',
      });
      expect(check('text', 'notContains', 'Hello')).toEqual({
        ok: false,
        detail: 'text: "Hello, World" contains "Hello"',
      });
    });
  });

  it('fails when an operator that compares has no value', () => {
    for (const op of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'notContains'] as const) {
      expect(check('status', op)).toEqual({ ok: false, detail: `operator ${op} needs a value` });
    }
  });

  it('fails (without throwing) on an invalid path or operator', () => {
    expect(evaluateJsonAssertion(doc, { path: 'a..b', operator: 'exists' })).toEqual({
      ok: false,
      detail: 'invalid path: empty name at position 2 of "a..b"',
    });
    expect(evaluateJsonAssertion(doc, { path: 'status', operator: 'matches' as never, value: 'x' })).toEqual({
      ok: false,
      detail: 'unknown operator "matches"',
    });
    expect(evaluateJsonAssertion(doc, { path: 'status', operator: '__proto__' as never, value: 'x' }).ok).toBe(false);
  });

  it('works on array and scalar roots', () => {
    expect(evaluateJsonAssertion([{ x: 1 }], { path: '[0].x', operator: 'eq', value: 1 })).toEqual(ok);
    expect(evaluateJsonAssertion([{ x: 1 }], { path: '$[0].x', operator: 'eq', value: 1 })).toEqual(ok);
    expect(evaluateJsonAssertion('up', { path: '$', operator: 'eq', value: 'up' })).toEqual(ok);
    expect(evaluateJsonAssertion(3, { path: '', operator: 'gt', value: 2 })).toEqual(ok);
  });

  it('truncates long values in details', () => {
    const r = evaluateJsonAssertion({ s: 'x'.repeat(500) }, { path: 's', operator: 'eq', value: 'y' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.detail.length).toBeLessThan(120);
  });

  it('never throws on arbitrary documents, paths and values (property)', () => {
    const ops = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'notContains', 'exists', 'notExists'] as const;
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string(),
        fc.constantFrom(...ops),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        (d, path, operator, value) => {
          const r = evaluateJsonAssertion(d, value === undefined ? { path, operator } : { path, operator, value });
          expect(typeof r.ok).toBe('boolean');
        },
      ),
    );
  });

  it('exists and notExists are complementary for valid paths (property)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.oneof(fc.constantFrom('a', 'b', '0'), fc.nat({ max: 3 })), { maxLength: 4 }),
        (d, segs) => {
          const path = formatJsonPath(segs);
          const e = evaluateJsonAssertion(d, { path, operator: 'exists' }).ok;
          const n = evaluateJsonAssertion(d, { path, operator: 'notExists' }).ok;
          expect(e).toBe(!n);
        },
      ),
    );
  });
});
