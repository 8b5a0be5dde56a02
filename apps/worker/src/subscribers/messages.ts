import { INCIDENT_UPDATE_LABELS, incidentUrl, type Prisma, type PrismaClient } from '@statusvane/shared';

/** What one subscriber message says; rendered as a plain-text mail or a JSON webhook body. */
export interface SubscriberMessage {
  /** `subscription.confirm`, `incident.opened`, `incident.updated`, `incident.resolved`, `maintenance.scheduled`... */
  type: string;
  subject: string;
  /** Plain text for mails (without the footer links); an incident's ends with the link to its page. */
  text: string;
  /** The webhook body's object (null for the confirmation, which only mails get). */
  data: Record<string, unknown> | null;
}

const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const incidentSelect = {
  id: true,
  title: true,
  status: true,
  impact: true,
  startedAt: true,
  resolvedAt: true,
  monitor: { select: { componentId: true } },
  components: { select: { component: { select: { id: true, name: true } } } },
  updates: {
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, status: true, message: true, createdAt: true },
  },
} as const satisfies Prisma.IncidentSelect;

/**
 * The message of an event key, read from the rows as they are now (so a mail about an incident shows its latest
 * title). Null when what it was about is gone (deleted since): nothing to tell. `page.url` is the page's public
 * address: an incident's message links its permalink there.
 */
export async function buildMessage(
  prisma: PrismaClient,
  workspaceId: string,
  page: { name: string; url: string },
  eventKey: string,
): Promise<SubscriberMessage | null> {
  const pageName = page.name;
  const [kind, id, what] = eventKey.split(':') as [string, string, string | undefined];
  if (kind === 'incident' || kind === 'update') {
    const incident =
      kind === 'incident'
        ? await prisma.incident.findFirst({ where: { id, workspaceId }, select: incidentSelect })
        : (
            await prisma.incidentUpdate.findFirst({
              where: { id, incident: { workspaceId } },
              select: { incident: { select: incidentSelect } },
            })
          )?.incident;
    if (!incident) return null;
    const update = kind === 'update' ? incident.updates.find((u) => u.id === id) : incident.updates.at(-1);
    const type = kind === 'update' ? 'incident.updated' : `incident.${what}`;
    const stage =
      kind === 'incident' && what === 'resolved'
        ? 'Resolved'
        : update
          ? INCIDENT_UPDATE_LABELS[update.status]
          : 'Investigating';
    const componentNames = incident.components.map((c) => c.component.name);
    const url = incidentUrl(page.url, incident.id);
    const lines = [
      `${incident.title}`,
      `${stage} · ${incident.impact} impact · started ${utc(incident.startedAt)}${incident.resolvedAt ? ` · resolved ${utc(incident.resolvedAt)}` : ''}`,
      ...(componentNames.length ? [`Affects: ${componentNames.join(', ')}`] : []),
      ...(update ? ['', update.message] : []),
      '',
      `Details and every update: ${url}`,
    ];
    return {
      type,
      subject: `[${pageName}] ${stage}: ${incident.title}`,
      text: lines.join('\n'),
      data: {
        incident: {
          id: incident.id,
          title: incident.title,
          status: incident.status,
          impact: incident.impact,
          startedAt: incident.startedAt.toISOString(),
          resolvedAt: incident.resolvedAt?.toISOString() ?? null,
          components: incident.components.map((c) => c.component),
          url,
        },
        update: update
          ? { id: update.id, status: update.status, message: update.message, createdAt: update.createdAt.toISOString() }
          : null,
      },
    };
  }
  if (kind === 'maintenance') {
    const w = await prisma.maintenanceWindow.findFirst({
      where: { id, workspaceId },
      select: {
        id: true,
        title: true,
        body: true,
        startsAt: true,
        endsAt: true,
        components: { select: { component: { select: { id: true, name: true } } } },
      },
    });
    if (!w) return null;
    const word =
      what === 'scheduled'
        ? 'Scheduled maintenance'
        : what === 'started'
          ? 'Maintenance started'
          : 'Maintenance completed';
    const names = w.components.map((c) => c.component.name);
    return {
      type: `maintenance.${what}`,
      subject: `[${pageName}] ${word}: ${w.title}`,
      text: [
        w.title,
        `${utc(w.startsAt)} – ${utc(w.endsAt)}`,
        `Affects: ${names.length ? names.join(', ') : 'all components'}`,
        ...(w.body ? ['', w.body] : []),
      ].join('\n'),
      data: {
        maintenance: {
          id: w.id,
          title: w.title,
          body: w.body,
          startsAt: w.startsAt.toISOString(),
          endsAt: w.endsAt.toISOString(),
          components: w.components.map((c) => c.component),
        },
      },
    };
  }
  return null;
}
