import { LRUCache } from 'lru-cache';
import type { EventPosition } from '@statusvane/shared';
import type { RenderedAnswer } from '../middleware/rendered-answer.js';

/**
 * The oldest a kept console page is served (ADR 0023). What the workspace's event log records (a monitor created,
 * changed, paused, deleted, its status changed by checks, maintenance, incidents) shows on the next request; what
 * checks change without an event (the time of the last check, the sparklines, the 24-hour uptime) at most this late.
 */
export const CONSOLE_PAGE_MAX_AGE_MS = 5_000;

/** Bytes of rendered pages one API process keeps (a monitors page of 100 rows: about 250 KB with its gzip). */
const MAX_BYTES = 32 * 1024 * 1024;

/** A rendered page, and what it was rendered for and from. */
export interface KeptPage {
  /** Everything the page shows that is not the workspace's log: who asked, as what, in which workspace. */
  who: string;
  /** Where the event log ended before the page's first read: the page is current while no event came after it. */
  logEnd: EventPosition;
  /** The request clock's reading the page was rendered at. */
  at: number;
  answer: RenderedAnswer;
}

/**
 * Rendered console pages kept for the request that asks for the same again (ADR 0023), by the session and address
 * asked for. mountPages serves one only while the member, their role and the workspace are what it was rendered for,
 * the workspace's event log has nothing after its `logEnd`, and it is under CONSOLE_PAGE_MAX_AGE_MS old; the least
 * recently used go first once the process keeps `maxBytes`. One cache per console router.
 */
export function consolePageCache(maxBytes = MAX_BYTES) {
  const kept = new LRUCache<string, KeptPage>({
    maxSize: maxBytes,
    // The gzip is made on first use: counted beforehand at an eighth of the page (what pages of rows come to).
    sizeCalculation: (p) => p.answer.body.length + Math.ceil(p.answer.body.length / 8),
  });
  return {
    /** The page kept for `key`, whatever its state (mountPages judges it). */
    peek: (key: string): KeptPage | undefined => kept.get(key),
    keep: (key: string, page: KeptPage): void => void kept.set(key, page),
    drop: (key: string): void => void kept.delete(key),
  };
}

/** Whether a kept page may answer a request at `now`, from `who`, when its workspace's log has `loggedSince` events after it. */
export function servable(page: KeptPage, who: string, loggedSince: boolean | null, now: Date): boolean {
  const age = now.getTime() - page.at;
  return page.who === who && loggedSince === false && age >= 0 && age < CONSOLE_PAGE_MAX_AGE_MS;
}

export type ConsolePageCache = ReturnType<typeof consolePageCache>;
