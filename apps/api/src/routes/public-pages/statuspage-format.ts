import type { PublicIncident, PublicPageData } from '../../services/status-pages/public-page.js';
import type { PublicStatus } from '../../services/status-pages/public-status.js';
import { incidentUrl } from '@statusvane/shared';
import { HEADLINE } from '../../views/status-page/status-words.js';

/**
 * Atlassian Statuspage's public API v2 shapes (`/api/v2/summary.json`, `/api/v2/status.json`), so aggregators
 * and widgets that read Statuspage read us unchanged. Fields they read: `page`, `status.indicator` and
 * `description`, `components[].status`, `incidents[]` (unresolved) with `incident_updates`, and
 * `scheduled_maintenances[]` (upcoming and in progress) with `scheduled_for` / `scheduled_until`.
 */
export type StatuspageIndicator = 'none' | 'minor' | 'major' | 'critical';

/**
 * The page's indicator, from the same headline the page shows (public-status.ts): degraded performance is minor, a
 * partial outage major, a major outage critical. Maintenance alone is `none`, as on Statuspage.
 */
const INDICATOR: Record<PublicStatus, StatuspageIndicator> = {
  operational: 'none',
  under_maintenance: 'none',
  degraded_performance: 'minor',
  partial_outage: 'major',
  major_outage: 'critical',
};

function statuspagePage(d: PublicPageData, pageId: string) {
  return { id: pageId, name: d.page.name, url: d.page.url, time_zone: 'Etc/UTC', updated_at: d.generatedAt };
}

/** The description is the page's own headline: one vocabulary on the page and in its JSON. */
function status(d: PublicPageData) {
  return { indicator: INDICATOR[d.summary], description: HEADLINE[d.summary] };
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
    shortlink: incidentUrl(d.page.url, i.id),
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
    status: c.state,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    position,
    description: c.description || null,
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

const WORST_FIRST: PublicStatus[] = [
  'major_outage',
  'partial_outage',
  'degraded_performance',
  'under_maintenance',
  'operational',
];

function groups(d: PublicPageData, pageId: string) {
  return d.sections.flatMap((s, index) => {
    if (s.name === null) return [];
    const members = s.componentIds.map((id) => d.components.find((c) => c.id === id)!);
    const times = members.flatMap((c) => [c.createdAt, c.updatedAt]).sort();
    return [
      {
        id: groupId(pageId, index),
        name: s.name,
        status: WORST_FIRST.find((st) => members.some((c) => c.state === st)) ?? 'operational',
        // A section has no dates of its own: its components' earliest creation and latest change stand in.
        created_at: times[0] ?? d.generatedAt,
        updated_at: times.at(-1) ?? d.generatedAt,
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
        created_at: m.createdAt,
        updated_at: m.updatedAt,
        monitoring_at: null,
        resolved_at: null,
        impact: 'maintenance',
        shortlink: `${d.page.url}#maintenance-${m.id}`,
        started_at: m.startsAt,
        page_id: pageId,
        incident_updates: m.body
          ? [
              {
                id: `${m.id}-notice`,
                status: m.status === 'in_progress' ? 'in_progress' : 'scheduled',
                body: m.body,
                incident_id: m.id,
                created_at: m.createdAt,
                updated_at: m.updatedAt,
                display_at: m.createdAt,
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
