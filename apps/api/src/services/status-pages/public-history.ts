import type { MaintenanceStatus, PrismaClient } from '@statusvane/shared';
import { maintenanceStatus } from '../maintenance/maintenance-status.js';
import {
  readPublicIncidents,
  readShownComponents,
  toPublicIncident,
  toPublicMaintenance,
  windowSelect,
  windowsTouchingPage,
  type PublicIncident,
  type PublicPageData,
  type PublicPageRef,
} from './public-page.js';

/** The history page goes back this far (whole months: the month this many days ago is the first one shown). */
export const HISTORY_DAYS = 400;
/** Incidents (and windows) listed for one month at most: a month with more says so. */
export const HISTORY_MONTH_LIMIT = 200;
const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UTC month, `YYYY-MM`. */
export type Month = string;

/** The month of an instant, UTC. */
export const monthOf = (d: Date): Month => d.toISOString().slice(0, 7);

/** The month `n` months after `m` (n may be negative). */
export function addMonths(m: Month, n: number): Month {
  const [y, mo] = m.split('-').map(Number) as [number, number];
  return monthOf(new Date(Date.UTC(y, mo - 1 + n, 1)));
}

/** The months the history page serves at `now`: from the month HISTORY_DAYS ago to the current one. */
export function historyBounds(now: Date): { first: Month; last: Month } {
  return { first: monthOf(new Date(now.getTime() - HISTORY_DAYS * DAY_MS)), last: monthOf(now) };
}

/**
 * The month a `?month=` asks for: absent is the current month; a value that is not `YYYY-MM`, or a month outside
 * historyBounds, is null (the route answers 400: a link never produces one, and a clamped answer would hide a typo).
 */
export function parseHistoryMonth(value: unknown, now: Date): Month | null {
  const { first, last } = historyBounds(now);
  if (value === undefined) return last;
  if (typeof value !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) return null;
  return value >= first && value <= last ? value : null;
}

export interface PublicMaintenanceEntry extends Omit<PublicPageData['maintenance'][number], 'status'> {
  status: MaintenanceStatus;
}

export interface PublicHistory {
  month: Month;
  /** Public incidents that started in the month, newest first. */
  incidents: PublicIncident[];
  /** Windows touching the page that started (or were to start) in the month, up to now, newest first. */
  maintenance: PublicMaintenanceEntry[];
  /** More than HISTORY_MONTH_LIMIT of either: the lists are cut. */
  truncated: boolean;
}

/**
 * One month of a page's public record: the incidents it would have shown (publicIncidentFilter over the components
 * it shows now) that started in the month, and the maintenance windows touching it that started in the month, never
 * later than now (windows not begun yet are the main page's "upcoming"). Scoped to the page's workspace.
 */
export async function loadPublicHistory(
  prisma: PrismaClient,
  page: PublicPageRef,
  month: Month,
  now: Date,
): Promise<PublicHistory> {
  const from = new Date(`${month}-01T00:00:00.000Z`);
  const next = new Date(`${addMonths(month, 1)}-01T00:00:00.000Z`);
  const until = next < now ? next : now;
  const shown = await readShownComponents(prisma, page);
  const [incidents, windows] = await Promise.all([
    readPublicIncidents(
      prisma,
      page.workspaceId,
      shown,
      { startedAt: { gte: from, lt: until } },
      HISTORY_MONTH_LIMIT + 1,
    ),
    prisma.maintenanceWindow.findMany({
      where: { workspaceId: page.workspaceId, startsAt: { gte: from, lt: until } },
      orderBy: [{ startsAt: 'desc' }, { id: 'asc' }],
      take: HISTORY_MONTH_LIMIT + 1,
      select: windowSelect,
    }),
  ]);
  return {
    month,
    incidents: incidents.slice(0, HISTORY_MONTH_LIMIT).map((i) => toPublicIncident(i, shown)),
    maintenance: windowsTouchingPage(windows.slice(0, HISTORY_MONTH_LIMIT), shown).map((w) => ({
      ...toPublicMaintenance(w, shown, now),
      status: maintenanceStatus(w, now),
    })),
    truncated: incidents.length > HISTORY_MONTH_LIMIT || windows.length > HISTORY_MONTH_LIMIT,
  };
}

/**
 * One public incident of the page (its permalink), or null: not an id, not in the page's workspace, or not public on
 * this page (a monitor's incident whose component the page does not show, a manual incident naming only such
 * components). All of those are the same 404.
 */
export async function loadPublicIncident(
  prisma: PrismaClient,
  page: PublicPageRef,
  incidentId: string,
): Promise<PublicIncident | null> {
  const id = incidentId.toLowerCase();
  if (!UUID.test(id)) return null;
  const shown = await readShownComponents(prisma, page);
  const [row] = await readPublicIncidents(prisma, page.workspaceId, shown, { id }, 1);
  return row ? toPublicIncident(row, shown) : null;
}
