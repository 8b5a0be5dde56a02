import type { ComponentState, PublicIncident } from './public-page.js';

type IncidentImpact = PublicIncident['impact'];

/**
 * The one vocabulary of everything a status page tells the public (the page's banner and components, bars, badges,
 * feeds, `summary.json`): Atlassian Statuspage's component statuses, so aggregators read the same words people do.
 */
export type PublicStatus =
  'operational' | 'degraded_performance' | 'partial_outage' | 'major_outage' | 'under_maintenance';

/** The words shown for each status. */
export const PUBLIC_STATUS_LABELS: Readonly<Record<PublicStatus, string>> = {
  operational: 'Operational',
  degraded_performance: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  under_maintenance: 'Under maintenance',
};

/** Worst last: maintenance is the explanation the public needs, so only a real problem outranks it. */
const RANK: Readonly<Record<PublicStatus, number>> = {
  operational: 0,
  under_maintenance: 1,
  degraded_performance: 2,
  partial_outage: 3,
  major_outage: 4,
};

const worse = (a: PublicStatus, b: PublicStatus): PublicStatus => (RANK[b] > RANK[a] ? b : a);

/** What an open incident's impact does to the components it names (Statuspage's usual mapping). */
export const IMPACT_STATUS: Readonly<Record<IncidentImpact, PublicStatus>> = {
  none: 'operational',
  minor: 'degraded_performance',
  major: 'partial_outage',
  critical: 'major_outage',
};

/**
 * A shown component's public status: its monitor's state (down is a major outage, degraded is degraded
 * performance; paused, pending and no monitor report nothing wrong), raised by the impact of every open incident
 * touching it. Maintenance in progress replaces a monitor's "down" (the checks are expected to fail), but an
 * incident declared during it still shows.
 */
export function publicComponentStatus(state: ComponentState, incidentImpacts: readonly IncidentImpact[]): PublicStatus {
  let status: PublicStatus =
    state === 'maintenance'
      ? 'under_maintenance'
      : state === 'down'
        ? 'major_outage'
        : state === 'degraded'
          ? 'degraded_performance'
          : 'operational';
  for (const impact of incidentImpacts) status = worse(status, IMPACT_STATUS[impact]);
  return status;
}

/**
 * The page's headline from its components: every component in a major outage is a major outage; some of them, or
 * any partial outage, a partial outage (one component of eight down is not the whole service down); then degraded
 * performance, then maintenance. No component: operational.
 */
export function publicPageStatus(components: ReadonlyArray<{ state: PublicStatus }>): PublicStatus {
  if (components.length === 0) return 'operational';
  if (components.every((c) => c.state === 'major_outage')) return 'major_outage';
  const worst = components.reduce<PublicStatus>((w, c) => worse(w, c.state), 'operational');
  return worst === 'major_outage' ? 'partial_outage' : worst;
}
