import { describe, expect, it } from '@jest/globals';
import { renderedAnswer } from '../middleware/rendered-answer.js';
import { CONSOLE_PAGE_MAX_AGE_MS, consolePageCache, servable, type KeptPage } from './page-cache.js';

const AT = Date.parse('2026-11-30T09:00:00Z');
const page = (who: string, bytes = 1000): KeptPage => ({
  who,
  logEnd: { txid: 10n, seq: 0n },
  at: AT,
  answer: renderedAnswer('x'.repeat(bytes), 'once'),
});

describe('servable', () => {
  it('serves a page to the member it was rendered for, while the log has nothing after it, under the max age', () => {
    const p = page('owner\nws');
    expect(servable(p, 'owner\nws', false, new Date(AT))).toBe(true);
    expect(servable(p, 'owner\nws', false, new Date(AT + CONSOLE_PAGE_MAX_AGE_MS - 1))).toBe(true);
  });

  it('refuses it once old, from a clock gone back, for someone else, or when the log moved or was not asked', () => {
    const p = page('owner\nws');
    expect(servable(p, 'owner\nws', false, new Date(AT + CONSOLE_PAGE_MAX_AGE_MS))).toBe(false);
    expect(servable(p, 'owner\nws', false, new Date(AT - 1))).toBe(false);
    expect(servable(p, 'viewer\nws', false, new Date(AT))).toBe(false);
    expect(servable(p, 'owner\nws', true, new Date(AT))).toBe(false);
    expect(servable(p, 'owner\nws', null, new Date(AT))).toBe(false);
  });
});

describe('consolePageCache', () => {
  it('keeps, finds and drops pages by key', () => {
    const cache = consolePageCache();
    const p = page('a');
    cache.keep('k', p);
    expect(cache.peek('k')).toBe(p);
    cache.drop('k');
    expect(cache.peek('k')).toBeUndefined();
  });

  it('lets the least recently used go once it holds its bytes (each page with an eighth more for its gzip)', () => {
    // Room for two pages of 1,000 bytes (1,125 each counted), not three.
    const cache = consolePageCache(2 * 1125);
    cache.keep('a', page('a'));
    cache.keep('b', page('b'));
    expect(cache.peek('a')).toBeDefined(); // now the most recently used
    cache.keep('c', page('c'));
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('a')).toBeDefined();
    expect(cache.peek('c')).toBeDefined();
  });
});
