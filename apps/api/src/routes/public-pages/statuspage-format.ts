import type { ComponentState, PublicIncident, PublicPageData } from '../../services/status-pages/public-page.js';

/**
 * Atlassian Statuspage's public API v2 shapes (`/api/v2/summary.json`, `/api/v2/status.json`), so aggregators
 * and widgets that read Statuspage read us unchanged. Fields they read: `page`, `status.indicator` and
 * `description`, `components[].status`, `incidents[]` (unresolved) with `incident_updates`, and
 * `scheduled_maintenances[]` (upcoming and in progress) with `scheduled_for` / `scheduled_until`.
 */
export type StatuspageComponentStatus =
  'operational' | 'degraded_performance' | 'partial_outage' | 'major_outage' | 'under_maintenance';
export type StatuspageIndicator = 'none' | 'minor' | 'major' | 'critical';

/** paused and pending have no Statuspage word: they are reported operational (nothing known to be wrong). */
const COMPONENT_STATUS: Record<ComponentState, StatuspageComponentStatus> = {
  up: 'operational',
  degraded: 'degraded_performance',
  down: 'major_outage',
  maintenance: 'under_maintenance',
  paused: 'operational',
  pending: 'operational',
};

const INDICATOR_TEXT: Record<StatuspageIndicator, string> = {
  none: 'All Systems Operational',
  minor: 'Minor Service Outage',
  major: 'Partial System Outage',
  critical: 'Major Service Outage',
};

const RANK: Record<StatuspageIndicator, number> = { none: 0, minor: 1, major: 2, critical: 3 };

/**
 * The page's indicator: the worst of the open incidents' impacts and the components (a component down is major,
 * degraded is minor). Maintenance alone is `none`, as on Statuspage.
 */
export function statuspageIndicator(d: PublicPageData): StatuspageIndicator {
  let worst: StatuspageIndicator = 'none';
  const raise = (i: StatuspageIndicator) => {
    if (RANK[i] > RANK[worst]) worst = i;
  };
  for (const c of d.components) {
    if (c.state === 'down') raise('major');
    else if (c.state === 'degraded') raise('minor');
  }
  for (const i of d.incidents) if (i.impact !== 'none') raise(i.impact);
  return worst;
}

function statuspagePage(d: PublicPageData, pageId: string) {
  return { id: pageId, name: d.page.name, url: d.page.url, time_zone: 'Etc/UTC', updated_at: d.generatedAt };
}

function status(d: PublicPageData) {
  const indicator = statuspageIndicator(d);
  return { indicator, description: INDICATOR_TEXT[indicator] };
}

function incident(d: PublicPageData, pageId: string, i: PublicIncident) {
  const last = i.updates.at(-1);
  const monitoring = i.updates.find((u) => u.status === 'monitoring');
  const updatedAt = [i.startedAt, i.acknowledgedAt, i.resolvedAt, last?.createdAt]
    .filter((t): t is string => t !== null && t !== undefined)
    .sort()
    .at(-1)!;
  const components = i.components.map((c) => component(d, pageId, c.id));
  return {
    id: i.id,
    name: i.title,
    status:
      last?.status ??
      (i.status === 'resolved' ? 'resolved' : i.status === 'acknowledged' ? 'identified' : 'investigating'),
    created_at: i.startedAt,
    updated_at: updatedAt,
    monitoring_at: monitoring?.createdAt ?? null,
    resolved_at: i.resolvedAt,
    impact: i.impact,
    shortlink: d.page.url,
    started_at: i.startedAt,
    page_id: pageId,
    // Statuspage lists updates newest first.
    incident_updates: [...i.updates].reverse().map((u) => ({
      id: u.id,
      status: u.status,
      body: u.message,
      incident_id: i.id,
      created_at: u.createdAt,
      updated_at: u.createdAt,
      display_at: u.createdAt,
      affected_components: null,
      deliver_notifications: true,
    })),
    components,
  };
}

function component(d: PublicPageData, pageId: string, id: string) {
  const c = d.components.find((x) => x.id === id)!;
  const position = d.components.indexOf(c) + 1;
  const groupIndex = d.sections.findIndex((s) => s.name !== null && s.componentIds.includes(id));
  return {
    id: c.id,
    name: c.name,
    status: COMPONENT_STATUS[c.state],
    // Statuspage requires a date here; components' creation is not public, so the time of the answer stands in.
    created_at: d.generatedAt,
    updated_at: d.generatedAt,
    position,
    description: null,
    showcase: true,
    start_date: null,
    group_id: groupIndex === -1 ? null : groupId(pageId, groupIndex),
    page_id: pageId,
    group: false,
    only_show_if_degraded: false,
  };
}

/** Sections are Statuspage's component groups; they have no id of their own, so one is made from the position. */
const groupId = (pageId: string, index: number) => `${pageId}-group-${index + 1}`;

const WORST_FIRST: StatuspageComponentStatus[] = [
  'major_outage',
  'partial_outage',
  'degraded_performance',
  'under_maintenance',
  'operational',
];

function groups(d: PublicPageData, pageId: string) {
  return d.sections.flatMap((s, index) => {
    if (s.name === null) return [];
    const members = s.componentIds.map((id) => COMPONENT_STATUS[d.components.find((c) => c.id === id)!.state]);
    return [
      {
        id: groupId(pageId, index),
        name: s.name,
        status: WORST_FIRST.find((st) => members.includes(st)) ?? 'operational',
        // Statuspage requires a date here; components' creation is not public, so the time of the answer stands in.
        created_at: d.generatedAt,
        updated_at: d.generatedAt,
        position: d.components.length + index + 1,
        description: null,
        showcase: false,
        start_date: null,
        group_id: null,
        page_id: pageId,
        group: true,
        only_show_if_degraded: false,
        components: s.componentIds,
      },
    ];
  });
}

/** `/api/v2/status.json` */
export function statuspageStatus(d: PublicPageData, pageId: string) {
  return { page: statuspagePage(d, pageId), status: status(d) };
}

/** `/api/v2/summary.json` */
export function statuspageSummary(d: PublicPageData, pageId: string) {
  return {
    page: statuspagePage(d, pageId),
    components: [...d.components.map((c) => component(d, pageId, c.id)), ...groups(d, pageId)],
    incidents: d.incidents.map((i) => incident(d, pageId, i)),
    scheduled_maintenances: d.maintenance
      .filter((m) => m.status !== 'cancelled')
      .map((m) => ({
        id: m.id,
        name: m.title,
        status: m.status === 'in_progress' ? 'in_progress' : 'scheduled',
        created_at: m.startsAt,
        updated_at: d.generatedAt,
        monitoring_at: null,
        resolved_at: null,
        impact: 'maintenance',
        shortlink: d.page.url,
        started_at: m.startsAt,
        page_id: pageId,
        incident_updates: m.body
          ? [
              {
                id: `${m.id}-notice`,
                status: m.status === 'in_progress' ? 'in_progress' : 'scheduled',
                body: m.body,
                incident_id: m.id,
                created_at: m.startsAt,
                updated_at: m.startsAt,
                display_at: m.startsAt,
                affected_components: null,
                deliver_notifications: true,
              },
            ]
          : [],
        components: (m.components.length ? m.components.map((c) => c.id) : d.components.map((c) => c.id)).map((id) =>
          component(d, pageId, id),
        ),
        scheduled_for: m.startsAt,
        scheduled_until: m.endsAt,
      })),
    status: status(d),
  };
}
