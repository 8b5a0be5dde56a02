/**
 * What one page says, whatever the channel: built once per fired step from the incident, the policy and the step,
 * so every target of the step (and every retry) gets the same content.
 */
export interface Page {
  /** The delivery row's id: receivers can use it to drop a duplicate. */
  deliveryId: string;
  workspaceId: string;
  incident: {
    id: string;
    title: string;
    status: string;
    impact: string;
    source: string;
    startedAt: string;
    monitorId: string | null;
    metadata: Record<string, string>;
  };
  policy: { id: string; name: string; runbook: string };
  step: { id: string; position: number; delayMinutes: number; minImpact: string; cycle: number };
  firedAt: string;
}

/** The webhook body (JSON, signed as sent). */
export function webhookBody(page: Page): string {
  return JSON.stringify({
    type: 'incident.escalation',
    deliveryId: page.deliveryId,
    workspaceId: page.workspaceId,
    incident: page.incident,
    policy: page.policy,
    step: page.step,
    firedAt: page.firedAt,
  });
}

function summary(page: Page): string {
  const { incident, step, policy } = page;
  const cycle = step.cycle > 0 ? `, repeat ${step.cycle}` : '';
  return `${incident.title} (impact ${incident.impact}) since ${incident.startedAt}. Step ${step.position + 1} of policy "${policy.name}"${cycle}.`;
}

/** A Slack incoming-webhook message: plain `text`, which every Slack-compatible receiver accepts. */
export function slackBody(page: Page): string {
  const runbook = page.policy.runbook ? `\nRunbook: ${page.policy.runbook}` : '';
  return JSON.stringify({ text: `:rotating_light: ${summary(page)}\nIncident ${page.incident.id}${runbook}` });
}

export function emailContent(page: Page): { subject: string; text: string } {
  const lines = [
    summary(page),
    '',
    `Incident: ${page.incident.id}`,
    `Status: ${page.incident.status}`,
    ...(page.incident.monitorId ? [`Monitor: ${page.incident.monitorId}`] : []),
    ...Object.entries(page.incident.metadata).map(([k, v]) => `${k}: ${v}`),
    ...(page.policy.runbook ? ['', 'Runbook:', page.policy.runbook] : []),
    '',
    'Acknowledge it to stop the escalation: POST /api/v1/incidents/<id>/acknowledge.',
  ];
  return { subject: `[Statusvane] ${page.incident.title} (${page.incident.impact})`, text: lines.join('\n') };
}
