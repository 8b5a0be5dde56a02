import { LRUCache } from 'lru-cache';
import { BRANDING_FIELDS, createBatchLoader, perClient, type PrismaClient } from '@statusvane/shared';
import {
  loadPublicPage,
  MAINTENANCE_HORIZON_DAYS,
  PAST_INCIDENT_DAYS,
  type PublicPageData,
  type PublicPageRef,
} from './public-page.js';
import { isoDay } from './uptime.js';
import { renderedAnswer, type RenderedAnswer } from '../../middleware/rendered-answer.js';

/** The longest a served page can be behind its uptime counts (everything else is checked on every request). */
export const PAGE_MAX_AGE_MS = 10_000;
/**
 * Pages kept at once, by default (each holds its data and the answers rendered from it: about 1 MB for 50
 * components).
 */
const MAX_PAGES = 200;
const DAY_MS = 86_400_000;

/** A page's data as loaded once, and the answers rendered from it (HTML per base path, JSON), rendered once each. */
export interface CachedPage {
  data: PublicPageData;
  rendered(key: string, render: (data: PublicPageData) => string): RenderedAnswer;
}

interface Entry {
  fingerprint: string;
  /** The page reference it was loaded for: a renamed page or a new slug is a new load. */
  ref: PublicPageRef;
  /** The `now` it was loaded at, and its UTC day (the uptime range ends on it). */
  loadedAt: number;
  day: string;
  value: Promise<CachedPage>;
  /** Loaded (a pending load is shared, never refreshed). */
  ready: boolean;
  /** A background reload of it is under way. */
  refreshing?: boolean;
}

/**
 * What a page shows, apart from its uptime counts, as one hash computed by PostgreSQL: the workspace's accounting
 * policy version (a policy change changes the bars at once), the page's layout, the
 * workspace's components with their monitor's state, the maintenance windows and incidents the page would list at
 * `now` (with the time-dependent parts: a window started, an incident still within its 14 days), and every incident's
 * components and updates. It reads the values themselves, not timestamps of changes, so that it sees every writer
 * (the API, the worker, an operator's SQL). A change to any of them is a new hash, and the next request loads the page
 * again. The queries mirror loadPublicPage's (a superset: every workspace incident and component, not only the shown
 * ones): a field the page starts showing belongs here too.
 */
const fingerprints = perClient((prisma: PrismaClient) =>
  createBatchLoader<{ page: PublicPageRef; now: Date }, string>(
    async (keys) => {
      // The requests of one event-loop turn for one page share one query (read at the latest of their clocks).
      const latest = new Map<string, { page: PublicPageRef; now: Date }>();
      for (const k of keys) {
        const cur = latest.get(k.page.id);
        if (!cur || cur.now < k.now) latest.set(k.page.id, k);
      }
      const out = new Map<string, string>();
      await Promise.all(
        [...latest.values()].map(async ({ page, now }) => {
          const horizon = new Date(now.getTime() + MAINTENANCE_HORIZON_DAYS * DAY_MS);
          const pastFrom = new Date(now.getTime() - PAST_INCIDENT_DAYS * DAY_MS);
          const [row] = await prisma.$queryRaw<Array<{ fp: string }>>`
            SELECT md5(concat_ws('|',
              (SELECT version FROM accounting_policies WHERE "workspaceId" = ${page.workspaceId}::uuid),
              (SELECT string_agg(concat_ws(',', s.id, s.name, s.position, sc."componentId", sc.position), ';'
                  ORDER BY s.id, sc."componentId")
                FROM status_page_sections s LEFT JOIN section_components sc ON sc."sectionId" = s.id
                WHERE s."statusPageId" = ${page.id}::uuid),
              (SELECT string_agg(concat_ws(',', c.id, c.name, md5(c.description), m.id, m.enabled, m.status), ';' ORDER BY c.id)
                FROM components c LEFT JOIN monitors m ON m."componentId" = c.id
                WHERE c."workspaceId" = ${page.workspaceId}::uuid),
              (SELECT string_agg(concat_ws(',', w.id, w.title, md5(w.body), w."startsAt", w."endsAt", w."cancelledAt",
                    w."startsAt" <= ${now}::timestamptz,
                    (SELECT string_agg(mc."componentId"::text, ',' ORDER BY mc."componentId")
                      FROM maintenance_components mc WHERE mc."maintenanceId" = w.id)), ';' ORDER BY w.id)
                FROM maintenance_windows w
                WHERE w."workspaceId" = ${page.workspaceId}::uuid AND w."endsAt" > ${now}::timestamptz
                  AND w."startsAt" <= ${horizon}::timestamptz),
              (SELECT string_agg(concat_ws(',', i.id, i.title, i.status, i.impact, i.source, i."monitorId", i."startedAt",
                    i."acknowledgedAt", i."resolvedAt",
                    (SELECT string_agg(ic."componentId"::text, ',' ORDER BY ic."componentId")
                      FROM incident_components ic WHERE ic."incidentId" = i.id),
                    (SELECT string_agg(concat_ws(',', u.id, u.status, u."createdAt", md5(u.message)), ',' ORDER BY u.id)
                      FROM incident_updates u WHERE u."incidentId" = i.id)), ';' ORDER BY i.id)
                FROM incidents i
                WHERE i."workspaceId" = ${page.workspaceId}::uuid
                  AND (i.status IN ('open', 'acknowledged') OR i."resolvedAt" >= ${pastFrom}::timestamptz))
            )) AS fp`;
          out.set(page.id, row!.fp);
        }),
      );
      return out;
    },
    // Requests for a page arriving while its fingerprint is being read share that read: a change is seen by the
    // requests that arrive after it commits, or at worst one read (milliseconds) later.
    { keyOf: (k) => k.page.id, shareInFlight: true },
  ),
);

/**
 * The public page's data, kept in this process while it is current (docs/decisions.md, "Public page cache"): an
 * entry serves a request when the page's fingerprint (above) is unchanged, it is the same UTC day, and it is under
 * PAGE_MAX_AGE_MS old by the request's clock; otherwise the page is loaded again. An entry only older than that (up to
 * twice) is still served while one request reloads it in the background, so a crowd never waits for the reload of
 * a page that did not change. So incidents, updates, maintenance, component states and layout are as fresh as a load
 * of their own on every request (one small query instead of the page's seven), and the uptime bars are at most
 * PAGE_MAX_AGE_MS behind (plus the reload's own time). Requests that find the same stale entry share one load. One
 * cache per router (each app, each test's clock).
 */
export function publicPageCache(
  deps: {
    prisma: PrismaClient;
    publicBaseUrl: string;
    checkRegions: readonly string[];
  },
  maxPages = MAX_PAGES,
) {
  // Past maxPages, the page least recently asked for goes.
  const entries = new LRUCache<string, Entry>({ max: maxPages });
  const sameState = (e: Entry, page: PublicPageRef, fingerprint: string, now: Date) =>
    e.fingerprint === fingerprint &&
    now.getTime() >= e.loadedAt &&
    e.day === isoDay(now) &&
    e.ref.name === page.name &&
    e.ref.slug === page.slug &&
    BRANDING_FIELDS.every((f) => e.ref.brand[f] === page.brand[f]) &&
    e.ref.workspaceId === page.workspaceId;

  const start = (page: PublicPageRef, fingerprint: string, now: Date, replaces: Entry | null): Entry => {
    const value = loadPublicPage(deps, { page, now }).then((data) => {
      const renders = new Map<string, RenderedAnswer>();
      return {
        data,
        rendered(key: string, render: (d: PublicPageData) => string) {
          let out = renders.get(key);
          if (out === undefined) {
            out = renderedAnswer(render(data), 'kept');
            renders.set(key, out);
          }
          return out;
        },
      };
    });
    const entry: Entry = { fingerprint, ref: page, loadedAt: now.getTime(), day: isoDay(now), value, ready: false };
    const put = () => void entries.set(page.id, entry);
    if (replaces === null) put();
    value.then(
      () => {
        entry.ready = true;
        // A background reload takes the place of the entry it refreshes, unless something newer did meanwhile.
        if (replaces !== null && entries.peek(page.id) === replaces) put();
      },
      () => {
        // A failed load is not kept: the next request tries again.
        if (entries.peek(page.id) === entry) entries.delete(page.id);
        if (replaces) replaces.refreshing = false;
      },
    );
    return entry;
  };

  return {
    async load(page: PublicPageRef, now: Date): Promise<CachedPage> {
      const fingerprint = await fingerprints(deps.prisma).load({ page, now });
      if (fingerprint === undefined) throw new Error('no fingerprint for a page');
      const cur = entries.get(page.id);
      if (cur && sameState(cur, page, fingerprint, now)) {
        const age = now.getTime() - cur.loadedAt;
        if (age < PAGE_MAX_AGE_MS || !cur.ready) return cur.value;
        if (age < 2 * PAGE_MAX_AGE_MS) {
          if (!cur.refreshing) {
            cur.refreshing = true;
            start(page, fingerprint, now, cur);
          }
          return cur.value;
        }
      }
      return start(page, fingerprint, now, null).value;
    },
  };
}

export type PublicPageCache = ReturnType<typeof publicPageCache>;
