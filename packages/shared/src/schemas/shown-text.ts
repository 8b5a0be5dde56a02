import type { z } from 'zod';

/*
 * Names, titles and descriptions are shown to people, on public status pages among others, so they must read as
 * they display. Refused anywhere in them: bidirectional controls (U+202A-U+202E embeddings and overrides,
 * U+2066-U+2069 isolates, U+200E/U+200F and U+061C marks: "<U+202E>gnp.exe" shows as "exe.png"), invisible characters
 * (every format character, Cf: zero-width space, joiner and non-joiner U+200B-U+200D, word joiner U+2060, U+FEFF,
 * soft hyphen ...; the Hangul fillers that render as blanks; line and paragraph separators) and control characters
 * (Cc: tab, newline, NUL ...). Two sequences of real emoji are kept (docs/decisions.md): a zero-width joiner between
 * two emoji (the family, rainbow flag and
 * technologist sequences) and the tag characters of a subdivision flag (the flag of Scotland).
 */
const EMOJI_JOINER = /(?<=[\p{Extended_Pictographic}\p{Emoji_Modifier}]\uFE0F?)\u200D(?=\p{Extended_Pictographic})/gu;
const FLAG_TAGS = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/u;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** The first character of `value` that would hide or reorder what it shows, or null. */
export function hiddenCharacter(value: string): string | null {
  return HIDDEN.exec(value.replace(FLAG_TAGS, '\u{1F3F4}').replace(EMOJI_JOINER, ''))?.[0] ?? null;
}

function described(char: string): string {
  const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const kind = BIDI.test(char)
    ? 'a bidirectional control'
    : /\p{Cc}/u.test(char)
      ? 'a control character'
      : 'an invisible character';
  return `${code} (${kind})`;
}

/**
 * The one refinement of every name, title and description people are shown (`.superRefine(shownText)` on its
 * string schema): 400 at the field, naming the character.
 */
export function shownText(value: string, ctx: z.RefinementCtx<string>): void {
  const char = hiddenCharacter(value);
  if (char !== null)
    ctx.addIssue({
      code: 'custom',
      message: `must not contain ${described(char)}: names and titles are shown as written, without bidirectional controls, invisible or control characters`,
    });
}
