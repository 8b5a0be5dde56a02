/**
 * What one page or notice says, whatever the channel. A page is built once per fired step from the incident, the
 * policy and the step, so every target of the step (and every retry) gets the same content; a notice once per
 * incident and kind.
 */
export interface IncidentSnapshot {
  id: string;
  title: string;
  status: string;
  impact: string;
  source: string;
  startedAt: string;
  monitorId: string | null;
  metadata: Record<string, string>;
}

export interface Page {
  /** The delivery row's id: receivers can use it to drop a duplicate. */
  deliveryId: string;
  workspaceId: string;
  incident: IncidentSnapshot;
  policy: { id: string; name: string; runbook: string };
  step: { id: string; position: number; delayMinutes: number; minImpact: string; cycle: number };
  firedAt: string;
  /** A test message (POST /escalation-policies/{id}/test): no incident is behind it. */
  test?: boolean;
  /** One-use links that acknowledge or resolve the incident (`/a/<token>/...`): in every real page, never a test. */
  links?: { acknowledge: string; resolve: string };
}

/**
 * "The incident was acknowledged / resolved", sent to every target that was paged for it; or "your shift starts
 * during this open incident" (`handoff`), sent to the incoming on-call user's contact methods.
 */
export interface Notice {
  /** The notice row's id: receivers can use it to drop a duplicate. */
  noticeId: string;
  workspaceId: string;
  kind: 'acknowledged' | 'resolved' | 'handoff';
  /** A handoff: the schedule whose shift started. */
  schedule?: { id: string; name: string };
  incident: IncidentSnapshot & { acknowledgedAt: string | null; resolvedAt: string | null };
  /** When it was acknowledged or resolved, or the shift started. */
  at: string;
}

export type Message = { kind: 'page'; page: Page } | { kind: 'notice'; notice: Notice };

export const incidentOf = (m: Message): IncidentSnapshot => (m.kind === 'page' ? m.page.incident : m.notice.incident);

/** The webhook body (JSON, signed as sent). */
export function webhookBody(m: Message): string {
  if (m.kind === 'notice') {
    const n = m.notice;
    return JSON.stringify({
      type: n.kind === 'handoff' ? 'oncall.handoff' : `incident.${n.kind}`,
      deliveryId: n.noticeId,
      workspaceId: n.workspaceId,
      incident: n.incident,
      ...(n.schedule ? { schedule: n.schedule } : {}),
      at: n.at,
    });
  }
  const page = m.page;
  return JSON.stringify({
    type: 'incident.escalation',
    deliveryId: page.deliveryId,
    workspaceId: page.workspaceId,
    incident: page.incident,
    policy: page.policy,
    step: page.step,
    firedAt: page.firedAt,
    ...(page.test ? { test: true } : {}),
    ...(page.links ? { links: page.links } : {}),
  });
}

function summary(page: Page): string {
  const { incident, step, policy } = page;
  const cycle = step.cycle > 0 ? `, repeat ${step.cycle}` : '';
  return `${incident.title} (impact ${incident.impact}) since ${incident.startedAt}. Step ${step.position + 1} of policy "${policy.name}"${cycle}.`;
}

const KIND_WORD = { acknowledged: 'Acknowledged', resolved: 'Resolved', handoff: 'You are on call' } as const;

/** The lines that carry a page's links, the same in every text channel. */
export function linkLines(page: Page): string[] {
  return page.links ? [`Acknowledge: ${page.links.acknowledge}`, `Resolve: ${page.links.resolve}`] : [];
}

/**
 * The message of the chat channels (Slack, Teams, Discord, ntfy, Telegram): a title line and plain text, the same
 * for every one of them. Pages: what is down, the step, the incident id and the runbook. Notices: what happened when.
 */
export function chatMessage(m: Message): {
  title: string;
  text: string;
  icon: 'page' | 'acknowledged' | 'resolved' | 'handoff';
} {
  if (m.kind === 'notice') {
    const n = m.notice;
    if (n.kind === 'handoff')
      return {
        title: `${KIND_WORD.handoff}: ${n.incident.title}`,
        text:
          `Your shift${n.schedule ? ` in "${n.schedule.name}"` : ''} started at ${n.at} during an open incident ` +
          `(impact ${n.incident.impact}, since ${n.incident.startedAt}).\nIncident ${n.incident.id}`,
        icon: 'handoff',
      };
    return {
      title: `${KIND_WORD[n.kind]}: ${n.incident.title}`,
      text: `${KIND_WORD[n.kind]} at ${n.at}; it started at ${n.incident.startedAt}.\nIncident ${n.incident.id}`,
      icon: n.kind,
    };
  }
  const page = m.page;
  const runbook = page.policy.runbook ? `\nRunbook: ${page.policy.runbook}` : '';
  return {
    title: `${page.incident.title} (impact ${page.incident.impact})`,
    // The links before the runbook: a channel that cuts a long message (Discord, Telegram) keeps them.
    text: [summary(page), `Incident ${page.incident.id}`, ...linkLines(page)].join('\n') + runbook,
    icon: 'page',
  };
}

/** A Slack incoming-webhook message: plain `text`, which every Slack-compatible receiver accepts. */
export function slackBody(m: Message): string {
  const emoji = {
    page: ':rotating_light:',
    acknowledged: ':eyes:',
    resolved: ':white_check_mark:',
    handoff: ':pager:',
  };
  const { text, icon } = chatMessage(m);
  const head = m.kind === 'notice' ? `${chatMessage(m).title}. ` : '';
  return JSON.stringify({ text: `${emoji[icon]} ${head}${text}` });
}

export function emailContent(m: Message): { subject: string; text: string } {
  if (m.kind === 'notice') {
    const { title, text } = chatMessage(m);
    return { subject: `[Statusvane] ${title}`, text };
  }
  const page = m.page;
  const lines = [
    summary(page),
    '',
    `Incident: ${page.incident.id}`,
    `Status: ${page.incident.status}`,
    ...(page.incident.monitorId ? [`Monitor: ${page.incident.monitorId}`] : []),
    ...Object.entries(page.incident.metadata).map(([k, v]) => `${k}: ${v}`),
    ...(page.policy.runbook ? ['', 'Runbook:', page.policy.runbook] : []),
    '',
    ...(page.links
      ? ['Acknowledge it to stop the escalation:', page.links.acknowledge, '', 'Resolve it:', page.links.resolve]
      : ['Acknowledge it to stop the escalation: POST /api/v1/incidents/<id>/acknowledge.']),
  ];
  return { subject: `[Statusvane] ${page.incident.title} (${page.incident.impact})`, text: lines.join('\n') };
}
