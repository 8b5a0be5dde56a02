import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { hiddenCharacter, shownText } from './shown-text.js';

const code = (s: string | null) =>
  s === null ? null : `U+${s.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

describe('hiddenCharacter', () => {
  it.each([
    ['bidi override', 'invoice\u202Egnp.exe', 'U+202E'],
    ['embedding', 'a\u202Ab', 'U+202A'],
    ['isolate', 'a\u2066b\u2069', 'U+2066'],
    ['left-to-right mark', 'a\u200Eb', 'U+200E'],
    ['right-to-left mark', 'a\u200Fb', 'U+200F'],
    ['Arabic letter mark', 'a\u061Cb', 'U+061C'],
    ['zero-width space', 'pay\u200Bpal', 'U+200B'],
    ['zero-width non-joiner', 'a\u200Cb', 'U+200C'],
    ['zero-width joiner between letters', 'a\u200Db', 'U+200D'],
    ['joiner after an emoji but before a letter', '\u{1F44D}\u200Db', 'U+200D'],
    ['joiner alone at the end', '\u{1F44D}\u200D', 'U+200D'],
    ['word joiner', 'a\u2060b', 'U+2060'],
    ['byte order mark', 'a\uFEFFb', 'U+FEFF'],
    ['soft hyphen (a format character)', 'a\u00ADb', 'U+00AD'],
    ['tag characters outside a flag', 'a\u{E0041}', 'U+E0041'],
    ['Hangul filler', 'a\u3164b', 'U+3164'],
    ['newline', 'a\nb', 'U+000A'],
    ['tab', 'a\tb', 'U+0009'],
    ['NUL', 'a\u0000b', 'U+0000'],
    ['DEL', 'a\u007Fb', 'U+007F'],
    ['line separator', 'a\u2028b', 'U+2028'],
  ])('refuses a %s', (_what, value, expected) => {
    expect(code(hiddenCharacter(value))).toBe(expected);
  });

  it.each([
    ['plain text', 'Checkout API (EU)'],
    ['accents and other scripts', 'Paiement é, 日本語, עברית, العربية'],
    ['a family (zero-width joiners between emoji)', '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'],
    ['a rainbow flag (emoji, variation selector, joiner)', '\u{1F3F3}\uFE0F\u200D\u{1F308}'],
    ['a skin tone then a joiner', '\u{1F469}\u{1F3FD}\u200D\u{1F4BB}'],
    ['a subdivision flag (tag characters)', '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'],
    ['a country flag and a keycap', '\u{1F1EB}\u{1F1F7} 1\uFE0F\u20E3'],
  ])('accepts %s', (_what, value) => {
    expect(hiddenCharacter(value)).toBeNull();
  });

  it('is one Zod refinement: the issue names the character and sits at the field', () => {
    const schema = z.object({ name: z.string().superRefine(shownText) });
    const result = schema.safeParse({ name: 'x\u202Ey' });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toEqual([
      expect.objectContaining({ path: ['name'], message: expect.stringContaining('U+202E (a bidirectional control)') }),
    ]);
  });
});
