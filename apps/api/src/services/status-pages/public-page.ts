import {
  accountMonitors,
  createBatchLoader,
  CUSTOM_DOMAIN_RE,
  loadAccountingSettings,
  monitorRegions,
  namedPolicy,
  perClient,
  pooledUptimePercent,
  publicIncidentFilter,
  statusPageUrl,
  type NamedPolicy,
  type StatusPageBranding,
  type MaintenanceStatus,
  type Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { maintenanceStatus } from '../maintenance/maintenance-status.js';
import { brandingSelect } from './status-page-record.js';
import { publicComponentStatus, publicPageStatus, type PublicStatus } from './public-status.js';
import { isoDay, UPTIME_DAYS, uptimeRange, uptimeSeries, type UptimeSeries } from './uptime.js';

/** What the public route needs to decide whether to serve a page at all. */
export interface PublicPageRef {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
  passwordHash: string | null;
  /** Logo, favicon, colour and website: shown on every page of it, the password form included. */
  brand: StatusPageBranding;
}

/** A component's state as the API's component record names it (its monitor's, or maintenance). */
export type ComponentState = 'up' | 'degraded' | 'down' | 'paused' | 'maintenance' | 'pending';

export interface PublicComponent {
  id: string;
  name: string;
  /** Shown under the name; "" when none. */
  description: string;
  /** In the page's one vocabulary (public-status.ts). */
  state: PublicStatus;
  /** End of the in-progress maintenance covering it, else null. */
  maintenanceUntil: string | null;
  createdAt: string;
  /** When what the page says of it last changed: its creation, or an incident or maintenance of it starting or ending. */
  updatedAt: string;
}

export interface PublicIncidentUpdate {
  id: string;
  status: 'investigating' | 'identified' | 'monitoring' | 'resolved';
  message: string;
  createdAt: string;
}

export interface PublicIncident {
  id: string;
  title: string;
  status: 'open' | 'acknowledged' | 'resolved';
  impact: 'none' | 'minor' | 'major' | 'critical';
  /** `monitor`: opened by a monitor's checks (its text is written for it); `manual`: declared by a person. */
  source: 'monitor' | 'manual';
  startedAt: string;
  acknowledgedAt: string | null;
  resolvedAt: string | null;
  /** The affected components shown on this page; empty: the whole workspace (a manual incident naming none). */
  components: Array<{ id: string; name: string }>;
  /** Oldest first. */
  updates: PublicIncidentUpdate[];
}

export interface PublicPageData {
  page: { name: string; slug: string; url: string; brand: StatusPageBranding };
  /** The headline, worked out from the components (public-status.ts). */
  summary: PublicStatus;
  generatedAt: string;
  /** Render order. Not arranged: one section named null holding every workspace component. */
  sections: Array<{ name: string | null; componentIds: string[] }>;
  components: PublicComponent[];
  /** Open and acknowledged public incidents, newest first, each with its update timeline. */
  incidents: PublicIncident[];
  /** Public incidents resolved within the last PAST_INCIDENT_DAYS days, newest first. */
  pastIncidents: PublicIncident[];
  maintenance: Array<{
    id: string;
    title: string;
    body: string;
    /** `cancelled` windows stay listed, marked, until the end they had been announced with. */
    status: Exclude<MaintenanceStatus, 'completed'>;
    startsAt: string;
    endsAt: string;
    /** When it was called off; null unless `status` is `cancelled`. */
    cancelledAt: string | null;
    /** When it was announced, and last changed. */
    createdAt: string;
    updatedAt: string;
    /** The affected components shown on this page; empty means every component. */
    components: Array<{ id: string; name: string }>;
  }>;
  uptime: {
    days: number;
    from: string;
    to: string;
    /** The accounting policy the percentages were counted with (GET /settings/accounting). */
    policy: NamedPolicy;
    /** The shown components over the range counted as one (pooledUptimePercent); null when nothing is counted. */
    percent: number | null;
    components: Array<{ componentId: string } & UptimeSeries>;
  };
}

const SLUG_SHAPE = /^[a-z0-9-]{1,63}$/;
const MAX_INCIDENTS = 50;
const MAX_MAINTENANCE = 50;
export const MAX_UPDATES = 100;
/** Resolved incidents stay on the page this long. */
export const PAST_INCIDENT_DAYS = 14;
/** Scheduled (and cancelled) maintenance is announced this long before it starts, not earlier. */
export const MAINTENANCE_HORIZON_DAYS = 7;
const DAY_MS = 86_400_000;

/**
 * Page lookups of one event-loop turn in one query (a crowd on one page asks once), by slug or by custom domain.
 * Not public is the same as none.
 */
const publicPages = perClient((prisma: PrismaClient) =>
  createBatchLoader<{ slug: string } | { customDomain: string }, PublicPageRef>(
    async (keys) => {
      const slugs = keys.flatMap((k) => ('slug' in k ? [k.slug] : []));
      const domains = keys.flatMap((k) => ('customDomain' in k ? [k.customDomain] : []));
      const rows = await prisma.statusPage.findMany({
        where: {
          isPublic: true,
          OR: [
            ...(slugs.length ? [{ slug: { in: slugs } }] : []),
            ...(domains.length ? [{ customDomain: { in: domains } }] : []),
          ],
        },
        select: {
          id: true,
          workspaceId: true,
          name: true,
          slug: true,
          passwordHash: true,
          customDomain: true,
          ...brandingSelect,
        },
      });
      const out = new Map<string, PublicPageRef>();
      for (const { customDomain, logoUrl, faviconUrl, brandColor, websiteUrl, ...fields } of rows) {
        const ref = { ...fields, brand: { logoUrl, faviconUrl, brandColor, websiteUrl } };
        out.set(`slug ${ref.slug}`, ref);
        if (customDomain) out.set(`host ${customDomain}`, ref);
      }
      return out;
    },
    { keyOf: (k) => ('slug' in k ? `slug ${k.slug}` : `host ${k.customDomain}`) },
  ),
);

/** One page by a unique key, or null when there is none or it is not public (both are 404: nothing is revealed). */
async function findPublicPageWhere(
  prisma: PrismaClient,
  where: { slug: string } | { customDomain: string },
): Promise<PublicPageRef | null> {
  return (await publicPages(prisma).load(where)) ?? null;
}

/** The public page whose customDomain is this host name (any case, no port), or null. */
export async function findPageByHost(prisma: PrismaClient, hostname: string): Promise<PublicPageRef | null> {
  const host = hostname.toLowerCase();
  return CUSTOM_DOMAIN_RE.test(host) ? findPublicPageWhere(prisma, { customDomain: host }) : null;
}

/** The public page of a slug (any case), or null. */
export async function findPublicPage(prisma: PrismaClient, slug: string): Promise<PublicPageRef | null> {
  const s = slug.toLowerCase();
  return SLUG_SHAPE.test(s) ? findPublicPageWhere(prisma, { slug: s }) : null;
}

const componentSelect = {
  id: true,
  name: true,
  description: true,
  createdAt: true,
  monitor: { select: { id: true, enabled: true, status: true, createdAt: true, type: true, regions: true } },
} as const;
type ComponentRow = Prisma.ComponentGetPayload<{ select: typeof componentSelect }>;

export const incidentSelect = {
  id: true,
  title: true,
  status: true,
  impact: true,
  source: true,
  startedAt: true,
  acknowledgedAt: true,
  resolvedAt: true,
  monitorId: true,
  components: { select: { componentId: true } },
  updates: {
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: MAX_UPDATES,
    select: { id: true, status: true, message: true, createdAt: true },
  },
} as const satisfies Prisma.IncidentSelect;
export type IncidentRow = Prisma.IncidentGetPayload<{ select: typeof incidentSelect }>;

export const windowSelect = {
  id: true,
  title: true,
  body: true,
  startsAt: true,
  endsAt: true,
  cancelledAt: true,
  createdAt: true,
  updatedAt: true,
  components: { select: { componentId: true } },
} as const satisfies Prisma.MaintenanceWindowSelect;
export type WindowRow = Prisma.MaintenanceWindowGetPayload<{ select: typeof windowSelect }>;
/** A window that touches the page, with the ids of the shown components it names. */
export type WindowOnPage = WindowRow & { shownIds: string[] };

type DayCounts = { day: Date; total: number; downCount: number; degradedCount: number };

/** The components a page shows, in render order, and the lookups the other steps need. */
export interface ShownComponents {
  sections: Array<{ name: string | null; rows: ComponentRow[] }>;
  /** Every shown component, section by section. */
  rows: ComponentRow[];
  byId: Map<string, ComponentRow>;
  monitorIds: string[];
  componentOfMonitor: Map<string, string>;
}

/**
 * Everything a visitor sees, read at `now`: the page's components (arranged sections in order, or every
 * workspace component by name), each one's state, open and acknowledged incidents touching them (and manual
 * incidents, which belong to the whole workspace), in-progress, upcoming and cancelled maintenance touching them,
 * and 90 days of uptime (the accounting function's figures under the workspace policy, beside the days' check
 * counts). A cancelled window is "called off but kept on the public record": it is listed, marked cancelled, until
 * the endsAt it had been announced with has passed (it never covers a component), so visitors who saw the notice
 * learn that it was called off rather than see it vanish. Every query is scoped to the page's workspace. Round trips
 * of waiting: the components, then the windows, incidents, uptime counts and accounting policy at once, then the
 * timelines the accounting function counts.
 */
export async function loadPublicPage(
  deps: { prisma: PrismaClient; publicBaseUrl: string; checkRegions: readonly string[] },
  { page, now = new Date() }: { page: PublicPageRef; now?: Date },
): Promise<PublicPageData> {
  const { prisma } = deps;
  const shown = await readShownComponents(prisma, page);
  const { from, to } = uptimeRange(now, UPTIME_DAYS);
  const settingsRead = loadAccountingSettings(prisma, page.workspaceId);
  const [windows, [openIncidents, resolvedIncidents], dayCounts, settings, accounts] = await Promise.all([
    readAnnouncedWindows(prisma, page.workspaceId, now),
    Promise.all([
      readPublicIncidents(prisma, page.workspaceId, shown, { status: { in: ['open', 'acknowledged'] } }),
      readPublicIncidents(prisma, page.workspaceId, shown, {
        resolvedAt: { gte: new Date(now.getTime() - PAST_INCIDENT_DAYS * DAY_MS) },
      }),
    ]),
    readDailyCounts(prisma, shown.monitorIds, from, to),
    settingsRead,
    // The one accounting function, per UTC day from the range's first up to now, under the workspace policy.
    settingsRead.then((settings) =>
      accountMonitors(prisma, {
        workspaceId: page.workspaceId,
        monitors: shown.rows.flatMap((r) =>
          r.monitor
            ? [
                {
                  ...r.monitor,
                  componentId: r.id,
                  slaTarget: null,
                  regions: monitorRegions(deps.checkRegions, r.monitor),
                },
              ]
            : [],
        ),
        from: from.getTime(),
        to: Math.floor(now.getTime() / 1000) * 1000,
        granularity: 'day',
        timezone: 'UTC',
        policy: settings,
      }),
    ),
  ]);
  const { onPage, maintenanceUntil } = windowsOnPage(windows, shown, now);
  const incidents = openIncidents.map((i) => toPublicIncident(i, shown));
  const pastIncidents = resolvedIncidents.map((i) => toPublicIncident(i, shown));
  const maintenance = onPage.slice(0, MAX_MAINTENANCE).map((w) => toPublicMaintenance(w, shown, now));
  const components = publicComponents(
    shown,
    maintenanceUntil,
    incidents,
    [...incidents, ...pastIncidents],
    maintenance,
  );
  return {
    page: { name: page.name, slug: page.slug, url: statusPageUrl(deps.publicBaseUrl, page.slug), brand: page.brand },
    summary: publicPageStatus(components),
    generatedAt: now.toISOString(),
    sections: shown.sections.map((s) => ({ name: s.name, componentIds: s.rows.map((r) => r.id) })),
    components,
    incidents,
    pastIncidents,
    maintenance,
    uptime: {
      days: UPTIME_DAYS,
      from: isoDay(from),
      to: isoDay(to),
      policy: namedPolicy(settings),
      percent: pooledUptimePercent(
        shown.rows.flatMap((r) => {
          const account = r.monitor && accounts.get(r.monitor.id);
          return account ? [account.total] : [];
        }),
        settings,
      ),
      components: shown.rows.map((r) => ({
        componentId: r.id,
        ...uptimeSeries(
          r.monitor ? (dayCounts.get(r.monitor.id) ?? []) : [],
          r.monitor ? (accounts.get(r.monitor.id) ?? null) : null,
          now,
        ),
      })),
    },
  };
}

/**
 * The page's arranged sections, in order, with their components of the page's own workspace; never arranged: every
 * workspace component by name, in one unnamed section.
 */
export async function readShownComponents(prisma: PrismaClient, page: PublicPageRef): Promise<ShownComponents> {
  const { workspaceId } = page;
  const arranged = await prisma.statusPageSection.findMany({
    where: { statusPageId: page.id },
    orderBy: { position: 'asc' },
    select: {
      name: true,
      components: {
        where: { component: { workspaceId } },
        orderBy: { position: 'asc' },
        select: { component: { select: componentSelect } },
      },
    },
  });
  let sections: ShownComponents['sections'];
  if (arranged.length > 0) {
    sections = arranged.map((s) => ({ name: s.name, rows: s.components.map((c) => c.component) }));
  } else {
    const all = await prisma.component.findMany({
      where: { workspaceId },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      select: componentSelect,
    });
    sections = [{ name: null, rows: all }];
  }
  const rows = sections.flatMap((s) => s.rows);
  return {
    sections,
    rows,
    byId: new Map(rows.map((r) => [r.id, r])),
    monitorIds: rows.flatMap((r) => (r.monitor ? [r.monitor.id] : [])),
    componentOfMonitor: new Map(rows.flatMap((r) => (r.monitor ? [[r.monitor.id, r.id] as const] : []))),
  };
}

/** The public incidents (publicIncidentFilter: touching a shown component, or manual) matching `when`, newest first. */
export function readPublicIncidents(
  prisma: PrismaClient,
  workspaceId: string,
  shown: ShownComponents,
  when: Prisma.IncidentWhereInput,
  take = MAX_INCIDENTS,
): Promise<IncidentRow[]> {
  return prisma.incident.findMany({
    where: { AND: [{ workspaceId }, when, publicIncidentFilter(shown.monitorIds, [...shown.byId.keys()])] },
    orderBy: [{ startedAt: 'desc' }, { id: 'asc' }],
    take,
    select: incidentSelect,
  });
}

/**
 * The workspace's windows not over yet by their announced end (in progress, upcoming, or cancelled: shown as such
 * until that end) and starting within the horizon: later windows are not announced yet.
 */
function readAnnouncedWindows(prisma: PrismaClient, workspaceId: string, now: Date): Promise<WindowRow[]> {
  const horizon = new Date(now.getTime() + MAINTENANCE_HORIZON_DAYS * DAY_MS);
  return prisma.maintenanceWindow.findMany({
    where: { workspaceId, endsAt: { gt: now }, startsAt: { lte: horizon } },
    orderBy: [{ startsAt: 'asc' }, { id: 'asc' }],
    take: 500,
    select: windowSelect,
  });
}

/** Each monitor's daily check counts over the uptime range, summed over regions, by monitor id. */
async function readDailyCounts(
  prisma: PrismaClient,
  monitorIds: string[],
  from: Date,
  to: Date,
): Promise<Map<string, DayCounts[]>> {
  if (monitorIds.length === 0) return new Map();
  // Summed over regions by PostgreSQL and handed over as one JSON text per monitor: 50 components x 90 days
  // are 4,500 rows, which the driver and Prisma would otherwise turn into objects one value at a time.
  const rollups = await prisma.$queryRaw<Array<{ monitorId: string; days: string }>>`
    SELECT x."monitorId"::text AS "monitorId",
      json_agg(json_build_array(to_char(x.day, 'YYYY-MM-DD'), x.total, x.down, x.degraded))::text AS days
    FROM (
      SELECT "monitorId", day, sum(total)::int AS total, sum("downCount")::int AS down,
        sum("degradedCount")::int AS degraded
      FROM check_rollups_daily
      WHERE "monitorId" = ANY(${monitorIds}::uuid[]) AND day >= ${isoDay(from)}::date AND day <= ${isoDay(to)}::date
      GROUP BY "monitorId", day
    ) x
    GROUP BY x."monitorId"`;
  return new Map(
    rollups.map((g) => [
      g.monitorId,
      (JSON.parse(g.days) as Array<[string, number, number, number]>).map(([day, total, downCount, degradedCount]) => ({
        day: new Date(day),
        total,
        downCount,
        degradedCount,
      })),
    ]),
  );
}

/** The windows that touch this page (whole-workspace ones, or ones naming at least one shown component). */
export function windowsTouchingPage(windows: WindowRow[], shown: ShownComponents): WindowOnPage[] {
  return windows
    .map((w) => ({ ...w, shownIds: w.components.map((c) => c.componentId).filter((id) => shown.byId.has(id)) }))
    .filter((w) => w.components.length === 0 || w.shownIds.length > 0);
}

/**
 * The windows that touch this page (whole-workspace ones, or ones naming at least one shown component), and the end
 * of the latest in-progress window covering each shown component.
 */
function windowsOnPage(
  windows: WindowRow[],
  shown: ShownComponents,
  now: Date,
): { onPage: WindowOnPage[]; maintenanceUntil: Map<string, Date> } {
  const onPage = windowsTouchingPage(windows, shown);
  const maintenanceUntil = new Map<string, Date>();
  for (const w of onPage) {
    if (maintenanceStatus(w, now) !== 'in_progress') continue;
    for (const id of w.components.length === 0 ? [...shown.byId.keys()] : w.shownIds) {
      const cur = maintenanceUntil.get(id);
      if (!cur || cur < w.endsAt) maintenanceUntil.set(id, w.endsAt);
    }
  }
  return { onPage, maintenanceUntil };
}

/** The components an incident or window touches on this page: the ones it names, or all of them when it names none. */
const touched = (shown: ShownComponents, named: ReadonlyArray<{ id: string }>) =>
  named.length ? named.map((c) => c.id) : [...shown.byId.keys()];

/**
 * Each shown component with its public status: its monitor's state, raised by the impact of the open incidents
 * touching it (an incident still open says something is wrong, whatever the last check said), and when that last
 * changed as far as the page knows.
 */
function publicComponents(
  shown: ShownComponents,
  maintenanceUntil: Map<string, Date>,
  open: readonly PublicIncident[],
  listed: readonly PublicIncident[],
  maintenance: PublicPageData['maintenance'],
): PublicComponent[] {
  const impacts = new Map<string, Array<PublicIncident['impact']>>();
  const changed = new Map<string, string>();
  const seen = (id: string, at: string | null) => {
    if (at && at > (changed.get(id) ?? '')) changed.set(id, at);
  };
  for (const i of open) {
    for (const id of touched(shown, i.components)) impacts.set(id, [...(impacts.get(id) ?? []), i.impact]);
  }
  for (const i of listed)
    for (const id of touched(shown, i.components)) for (const at of [i.startedAt, i.resolvedAt]) seen(id, at);
  for (const m of maintenance)
    if (m.status === 'in_progress') for (const id of touched(shown, m.components)) seen(id, m.startsAt);
  return shown.rows.map((r) => {
    const m = maintenanceUntil.get(r.id);
    const createdAt = r.createdAt.toISOString();
    const last = changed.get(r.id);
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      state: publicComponentStatus(componentState(r.monitor, m !== undefined), impacts.get(r.id) ?? []),
      maintenanceUntil: m?.toISOString() ?? null,
      createdAt,
      updatedAt: last && last > createdAt ? last : createdAt,
    };
  });
}

/** An incident as the page shows it: its monitor's component, or the shown components a manual incident names. */
export function toPublicIncident(i: IncidentRow, shown: ShownComponents): PublicIncident {
  const ids = i.monitorId
    ? [shown.componentOfMonitor.get(i.monitorId)].filter((id): id is string => id !== undefined)
    : i.components.map((c) => c.componentId).filter((id) => shown.byId.has(id));
  return {
    id: i.id,
    title: i.title,
    status: i.status,
    impact: i.impact,
    source: i.source,
    startedAt: i.startedAt.toISOString(),
    acknowledgedAt: i.acknowledgedAt?.toISOString() ?? null,
    resolvedAt: i.resolvedAt?.toISOString() ?? null,
    components: ids.map((id) => ({ id, name: shown.byId.get(id)!.name })),
    updates: i.updates.map((u) => ({
      id: u.id,
      status: u.status,
      message: u.message,
      createdAt: u.createdAt.toISOString(),
    })),
  };
}

/** A window as the page shows it, with its status at `now` (never `completed`: those are no longer read). */
export function toPublicMaintenance(
  w: WindowOnPage,
  shown: ShownComponents,
  now: Date,
): PublicPageData['maintenance'][number] {
  return {
    id: w.id,
    title: w.title,
    body: w.body,
    status: maintenanceStatus(w, now) as Exclude<MaintenanceStatus, 'completed'>,
    startsAt: w.startsAt.toISOString(),
    endsAt: w.endsAt.toISOString(),
    cancelledAt: w.cancelledAt?.toISOString() ?? null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    components: w.shownIds.map((id) => ({ id, name: shown.byId.get(id)!.name })),
  };
}

/**
 * A component's public state. Maintenance wins over everything (it is the explanation the public needs), then a
 * paused monitor, then the monitor's last state. A component without a monitor has nothing to report: pending.
 */
export function componentState(
  monitor: { enabled: boolean; status: string } | null,
  inMaintenance: boolean,
): ComponentState {
  if (inMaintenance) return 'maintenance';
  if (!monitor) return 'pending';
  if (!monitor.enabled) return 'paused';
  return monitor.status as ComponentState;
}
