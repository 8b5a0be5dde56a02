import { describe, expect, it } from '@jest/globals';
import { createStatusPageSchema, normaliseSlug, RESERVED_SLUGS, SLUG_RE } from './status-page.js';

describe('normaliseSlug', () => {
  it.each([
    ['acme', 'acme'],
    ['Acme', 'acme'],
    ['ACME Status', 'acme-status'],
    ['https://status.acme.com', 'status-acme-com'],
    ['http://status.acme.com/', 'status-acme-com'],
    ['HTTPS://WWW.Acme.com', 'acme-com'],
    ['www.acme.io', 'acme-io'],
    ['https://www.acme.io/status?x=1#top', 'acme-io-status-x-1-top'],
    ['  acme  ', 'acme'],
    ['acme_corp', 'acme-corp'],
    // Hyphens are kept as they are; only runs of OTHER characters become one hyphen each.
    ['a--b', 'a--b'],
    ['a-b', 'a-b'],
    ['acme -- corp', 'acme----corp'],
    ['a - b', 'a---b'],
    ['a _ b', 'a-b'],
    ['a.-.b', 'a---b'],
    ['---acme---', 'acme'],
    ['!!acme!!', 'acme'],
    ['Café Rouge', 'cafe-rouge'],
    ['Ünïcödé', 'unicode'],
    ['日本', ''],
    ['', ''],
    ['---', ''],
    ['ab', 'ab'],
    // Any scheme is stripped (RFC 3986 shape), then `www.`; only at the start.
    ['ftp://acme', 'acme'],
    ['FTP://www.Acme', 'acme'],
    ['git+ssh://acme.dev', 'acme-dev'],
    ['web.cal://acme', 'acme'],
    ['x-y://acme', 'acme'],
    ['1ab://acme', '1ab-acme'],
    ['://acme', 'acme'],
    ['mailto:acme', 'mailto-acme'],
    ['acme.com/https://x', 'acme-com-https-x'],
    ['ℍello', 'hello'],
    ['wwwacme', 'wwwacme'],
    ['www', 'www'],
    ['acme.www.io', 'acme-www-io'],
    ['123', '123'],
  ])('%j -> %j', (input, expected) => {
    expect(normaliseSlug(input)).toBe(expected);
  });

  it('cuts at 63 characters', () => {
    expect(normaliseSlug('a'.repeat(100))).toBe('a'.repeat(63));
    expect(normaliseSlug('b'.repeat(63))).toHaveLength(63);
  });

  it('trims the hyphens a cut leaves at the end', () => {
    // 62 letters, then a separator at position 63: the cut would end in a hyphen.
    expect(normaliseSlug(`${'a'.repeat(62)} b`)).toBe('a'.repeat(62));
    expect(normaliseSlug(`${'a'.repeat(61)}..bcd`)).toBe(`${'a'.repeat(61)}-b`);
  });

  it('always produces a valid slug once it is at least 3 characters', () => {
    const inputs = [
      'https://x.y.z',
      'A B C',
      `${'x'.repeat(62)}--y`,
      'Ünïcödé Status!',
      '  -a-b-c-  ',
      'a--b',
      'ssh://--x--',
      `${'a'.repeat(61)}-- -b`,
    ];
    for (const i of inputs) {
      const s = normaliseSlug(i);
      if (s.length >= 3) expect([i, SLUG_RE.test(s)]).toEqual([i, true]);
    }
  });

  it('is idempotent', () => {
    for (const i of ['https://www.Acme.com/x', 'Café Rouge', '---a---b---', 'a--b', 'ftp://x -- y']) {
      expect(normaliseSlug(normaliseSlug(i))).toBe(normaliseSlug(i));
    }
  });

  it('lists the reserved slugs', () => {
    expect([...RESERVED_SLUGS].sort()).toEqual([
      'admin',
      'api',
      'app',
      'assets',
      'dashboard',
      'docs',
      'health',
      'help',
      'login',
      'metrics',
      'ping',
      'signup',
      'static',
      'status',
      'support',
      'www',
    ]);
  });
});

describe('createStatusPageSchema', () => {
  it('turns vanityUrl into a slug and defaults isPublic to true', () => {
    expect(createStatusPageSchema.parse({ vanityUrl: 'https://www.Acme.com', name: ' Acme ' })).toEqual({
      slug: 'acme-com',
      name: 'Acme',
      isPublic: true,
    });
  });

  it.each(['', 'ab', '!!', 'https://www.', 'a-'])('refuses %j (shorter than 3 after normalising)', (vanityUrl) => {
    const r = createStatusPageSchema.safeParse({ vanityUrl, name: 'x' });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['vanityUrl']);
  });

  it('refuses unknown keys, a missing name and a vanityUrl over 300 characters', () => {
    const r = createStatusPageSchema.safeParse({ vanityUrl: 'x'.repeat(301), isPublic: 'yes', extra: 1 });
    expect(r.success).toBe(false);
    const paths = r
      .error!.issues.map((i) => (i.code === 'unrecognized_keys' ? i.keys.join(',') : i.path.join('.')))
      .sort();
    expect(paths).toEqual(['extra', 'isPublic', 'name', 'vanityUrl']);
  });
});
