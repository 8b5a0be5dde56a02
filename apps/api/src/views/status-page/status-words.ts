import { INCIDENT_UPDATE_LABELS } from '@statusvane/shared';
import type { PublicIncident } from '../../services/status-pages/public-page.js';
import type { PublicStatus } from '../../services/status-pages/public-status.js';

export { PUBLIC_STATUS_LABELS } from '../../services/status-pages/public-status.js';

/** The page's headline in the same words as its components: "Partial outage", not a fourth name for it. */
export const HEADLINE: Readonly<Record<PublicStatus, string>> = {
  operational: 'All systems operational',
  degraded_performance: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  under_maintenance: 'Under maintenance',
};

/** "<Name> status", unless the name already says it ("Acme Status" stays as it is, never "Acme Status status"). */
export function statusTitle(name: string): string {
  return /\bstatus\s*$/i.test(name) ? name : `${name} status`;
}

/** `2026-05-01 10:00 UTC`: the text of a time, the same in pages, feeds and mails. */
export const utcText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** `2 d 3 h`, `1 h 05 min`, `3 min 20 s`, `40 s`: a length of time in words, the same for bars and incidents. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${String(m).padStart(2, '0')} min`;
  return m ? `${m} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
}

export const IMPACT_TEXT: Readonly<Record<PublicIncident['impact'], string>> = {
  none: 'No impact',
  minor: 'Minor impact',
  major: 'Major impact',
  critical: 'Critical impact',
};

/** Where an incident stands, in words: its latest update's stage, else what the incident's status implies. */
export function incidentStage(i: PublicIncident): string {
  const last = i.updates.at(-1);
  if (last) return INCIDENT_UPDATE_LABELS[last.status];
  return i.status === 'resolved' ? 'Resolved' : i.status === 'acknowledged' ? 'Identified' : 'Investigating';
}

/**
 * What an incident opened by a monitor says before anyone writes an update: what was seen, in words the public can
 * read (the technical failure reason stays in the console).
 */
export function monitorIncidentText(i: PublicIncident): string | null {
  if (i.source !== 'monitor' || i.updates.length > 0) return null;
  const what = i.components.map((c) => c.name).join(', ') || 'A service';
  return i.status === 'resolved'
    ? `Our automated checks found ${what} failing; it has recovered.`
    : `Our automated checks find ${what} failing. We are looking into it.`;
}
