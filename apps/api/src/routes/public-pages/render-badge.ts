import { html } from './html.js';

/** Fill colours with white text at WCAG AA contrast (the same as the page's banner). */
export const BADGE_COLOURS = {
  green: '#1e7a4a',
  amber: '#8a5a00',
  orange: '#b54708',
  red: '#b42318',
  blue: '#1d5fc4',
  grey: '#5a6475',
} as const;
export type BadgeColour = keyof typeof BADGE_COLOURS;

/**
 * Approximate advance widths of 11 px Verdana (the badge font of shields.io), so the boxes fit their text without
 * a font at hand; wide and narrow characters are told apart, everything else gets the average.
 */
function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    if ("iIl.,:;|!'".includes(ch)) w += 3.5;
    else if ('fjrt() '.includes(ch)) w += 5;
    else if ('mwMW@%'.includes(ch)) w += 10.5;
    else if (/[A-Z0-9]/.test(ch)) w += 7.5;
    else w += 6.8;
  }
  return Math.ceil(w);
}

/** Badge text is cut to this many characters (a component name can be 120). */
const MAX_LABEL = 40;
const clip = (s: string) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);

/**
 * A flat two-part badge (`label | message`), shields.io style. The text is escaped, and also given as the SVG's
 * title and aria-label, so a screen reader (and an <img alt> fallback) reads it; the colour is never the only
 * signal.
 */
export function renderBadge(label: string, message: string, colour: BadgeColour): string {
  const l = clip(label);
  const m = clip(message);
  const lw = textWidth(l) + 12;
  const mw = textWidth(m) + 12;
  const w = lw + mw;
  return html`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${l}: ${m}">
<title>${l}: ${m}</title>
<rect width="${lw}" height="20" rx="3" fill="#555"/>
<rect x="${lw}" width="${mw}" height="20" rx="3" fill="${BADGE_COLOURS[colour]}"/>
<rect x="${lw}" width="4" height="20" fill="${BADGE_COLOURS[colour]}"/>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${lw / 2}" y="14">${l}</text>
<text x="${lw + mw / 2}" y="14">${m}</text>
</g>
</svg>
`.value;
}
