import { describe, expect, it } from '@jest/globals';
import {
  brandPalettes,
  brandStylesheet,
  contrast,
  DARK_BACKGROUNDS,
  LIGHT_BACKGROUNDS,
  MIN_TEXT_CONTRAST,
  readableShade,
} from './brand-colours.js';

describe('contrast', () => {
  it('gives the WCAG ratios', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#ffffff', '#ffffff')).toBe(1);
    // The default link blue on white.
    expect(contrast('#1d5fc4', '#ffffff')).toBeCloseTo(6.02, 1);
  });
});

describe('readableShade', () => {
  it('keeps a colour that already reads at 4.5:1', () => {
    expect(readableShade('#1d5fc4', LIGHT_BACKGROUNDS, 'black')).toBe('#1d5fc4');
    expect(readableShade('#8fb5f5', DARK_BACKGROUNDS, 'white')).toBe('#8fb5f5');
  });

  it('darkens a light brand on the light theme and lightens a dark one on the dark theme, no further than needed', () => {
    const yellow = readableShade('#ffd400', LIGHT_BACKGROUNDS, 'black');
    expect(yellow).not.toBe('#ffd400');
    for (const bg of LIGHT_BACKGROUNDS) expect(contrast(yellow, bg)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
    const navy = readableShade('#0b1f4d', DARK_BACKGROUNDS, 'white');
    for (const bg of DARK_BACKGROUNDS) expect(contrast(navy, bg)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
    // No darker than needed: just over the line (steps of 1% move the ratio by a few hundredths).
    expect(Math.min(...LIGHT_BACKGROUNDS.map((bg) => contrast(yellow, bg)))).toBeLessThan(MIN_TEXT_CONTRAST + 0.2);
  });

  it('always finds a shade, for every colour of a coarse grid, on both themes; buttons read too', () => {
    for (let r = 0; r < 256; r += 51)
      for (let g = 0; g < 256; g += 51)
        for (let b = 0; b < 256; b += 51) {
          const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
          const { light, dark } = brandPalettes(hex);
          for (const bg of LIGHT_BACKGROUNDS) expect(contrast(light.accent, bg)).toBeGreaterThanOrEqual(4.5);
          for (const bg of DARK_BACKGROUNDS) expect(contrast(dark.accent, bg)).toBeGreaterThanOrEqual(4.5);
          expect(contrast(light.accent, light.onAccent)).toBeGreaterThanOrEqual(4.5);
          expect(contrast(dark.accent, dark.onAccent)).toBeGreaterThanOrEqual(4.5);
        }
  });
});

describe('brandStylesheet', () => {
  it('sets the accent for each theme, over the main stylesheet', () => {
    const css = brandStylesheet('#ffd400');
    const { light, dark } = brandPalettes('#ffd400');
    expect(css).toContain(`html:root{--link:${light.accent};--brand:${light.accent};--on-brand:#ffffff;}`);
    expect(css).toContain(`@media (prefers-color-scheme: dark){html:root{--link:${dark.accent};`);
  });
});
