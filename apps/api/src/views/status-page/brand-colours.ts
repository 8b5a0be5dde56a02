/**
 * A page's brand colour made readable (docs/decisions.md, "Status page branding"): links, the header accent and
 * buttons use the colour itself where it reads at WCAG's 4.5:1 against every background it sits on, otherwise the
 * nearest shade of it that does (mixed toward black on the light theme, toward white on the dark one).
 */

/** WCAG 2 AA for normal text. */
export const MIN_TEXT_CONTRAST = 4.5;

/** The backgrounds links and buttons sit on (status-page.css: `--bg` and `--card`), light and dark. */
export const LIGHT_BACKGROUNDS = ['#f5f6f8', '#ffffff'] as const;
export const DARK_BACKGROUNDS = ['#0f1217', '#171b22'] as const;

type Rgb = [number, number, number];

const rgbOf = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
const hexOf = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG 2 relative luminance of a `#rrggbb` colour. */
function luminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const lowestContrast = (colour: string, backgrounds: readonly string[]) =>
  Math.min(...backgrounds.map((bg) => contrast(colour, bg)));

/**
 * `brand` where it reaches MIN_TEXT_CONTRAST against each of `backgrounds`; otherwise the least mix of it toward
 * `toward` (black or white) that does, found in steps of 1%. Black reaches it against the light backgrounds and white
 * against the dark ones, so there is always an answer.
 */
export function readableShade(brand: string, backgrounds: readonly string[], toward: 'black' | 'white'): string {
  if (lowestContrast(brand, backgrounds) >= MIN_TEXT_CONTRAST) return brand;
  const from = rgbOf(brand);
  const to = toward === 'black' ? 0 : 255;
  for (let step = 1; step <= 100; step++) {
    const t = step / 100;
    const shade = hexOf(from.map((c) => c + (to - c) * t) as Rgb);
    if (lowestContrast(shade, backgrounds) >= MIN_TEXT_CONTRAST) return shade;
  }
  return toward === 'black' ? '#000000' : '#ffffff';
}

export interface BrandPalette {
  /** Links, the header accent and button backgrounds. */
  accent: string;
  /** Text on a button of the accent colour. */
  onAccent: string;
}

/**
 * The colours a brand gives each theme. A button's text is the theme's background colour inverted (white on light,
 * the darkest background on dark): the accent reaches 4.5:1 against the page's backgrounds, and so against that text.
 */
export function brandPalettes(brand: string): { light: BrandPalette; dark: BrandPalette } {
  return {
    light: { accent: readableShade(brand, LIGHT_BACKGROUNDS, 'black'), onAccent: '#ffffff' },
    dark: { accent: readableShade(brand, DARK_BACKGROUNDS, 'white'), onAccent: DARK_BACKGROUNDS[0] },
  };
}

/**
 * The page's brand stylesheet (served beside the page: the CSP allows styles from this origin only, never inline):
 * the accent custom properties for each theme, `html:root` so that it wins over the main stylesheet's `:root`
 * whichever loads first, and the brand stripe above the header.
 */
export function brandStylesheet(brand: string): string {
  const { light, dark } = brandPalettes(brand);
  const vars = (p: BrandPalette) => `--link:${p.accent};--brand:${p.accent};--on-brand:${p.onAccent};`;
  return (
    `html:root{${vars(light)}}\n` +
    `@media (prefers-color-scheme: dark){html:root{${vars(dark)}}}\n` +
    `body{border-top:4px solid var(--brand);}\n`
  );
}
