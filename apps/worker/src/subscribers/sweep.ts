import {
  publicIncidentFilter,
  shownComponentIds,
  type Logger,
  type PrismaClient,
  type SubscriberQueue,
} from '@statusvane/shared';

/** One thing subscribers are told of. `componentIds` empty: it concerns every component of the page. */
export interface PublicEvent {
  key: string;
  occurredAt: Date;
  componentIds: string[];
}

/** Pending deliveries older than this are not enqueued again by the sweep (they failed for good or were lost). */
const REENQUEUE_WINDOW_MS = 24 * 3600_000;
const REENQUEUE_MAX = 5000;

const inWindow = (d: Date | null, from: Date, to: Date) => d !== null && d > from && d <= to;

/**
 * The public events of one page between `from` (exclusive) and `to` (inclusive): incidents opened and resolved,
 * incident updates (not the `resolved` one, which the resolution carries, nor a manual incident's opening message),
 * and maintenance scheduled (created ahead of its start), started and completed (a cancelled window neither starts
 * nor completes). Derived from the rows themselves, so nothing in the API or the check worker has to remember to
 * announce anything, and a sweep that runs twice over the same span finds the same keys.
 */
export async function pageEvents(
  prisma: PrismaClient,
  page: { id: string; workspaceId: string },
  from: Date,
  to: Date,
): Promise<PublicEvent[]> {
  const shown = await shownComponentIds(prisma, page);
  const shownSet = new Set(shown);
  const monitors = await prisma.monitor.findMany({
    where: { componentId: { in: shown } },
    select: { id: true, componentId: true },
  });
  const componentOf = new Map(monitors.map((m) => [m.id, m.componentId]));
  const span = { gt: from, lte: to };
  const publicOnly = publicIncidentFilter([...componentOf.keys()], shown);
  const [incidents, updates, windows] = await Promise.all([
    prisma.incident.findMany({
      where: {
        AND: [{ workspaceId: page.workspaceId }, { OR: [{ startedAt: span }, { resolvedAt: span }] }, publicOnly],
      },
      select: {
        id: true,
        startedAt: true,
        resolvedAt: true,
        monitorId: true,
        components: { select: { componentId: true } },
      },
    }),
    prisma.incidentUpdate.findMany({
      where: {
        createdAt: span,
        status: { not: 'resolved' },
        incident: { AND: [{ workspaceId: page.workspaceId }, publicOnly] },
      },
      select: {
        id: true,
        createdAt: true,
        incident: {
          select: {
            source: true,
            startedAt: true,
            monitorId: true,
            components: { select: { componentId: true } },
            updates: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1, select: { id: true } },
          },
        },
      },
    }),
    prisma.maintenanceWindow.findMany({
      where: {
        workspaceId: page.workspaceId,
        cancelledAt: null,
        OR: [{ createdAt: span }, { startsAt: span }, { endsAt: span }],
      },
      select: {
        id: true,
        createdAt: true,
        startsAt: true,
        endsAt: true,
        components: { select: { componentId: true } },
      },
    }),
  ]);
  const incidentComponents = (i: { monitorId: string | null; components: Array<{ componentId: string }> }) =>
    i.monitorId
      ? [componentOf.get(i.monitorId)].filter((c): c is string => c !== undefined)
      : i.components.map((c) => c.componentId).filter((c) => shownSet.has(c));

  const events: PublicEvent[] = [];
  for (const i of incidents) {
    const componentIds = incidentComponents(i);
    if (inWindow(i.startedAt, from, to))
      events.push({ key: `incident:${i.id}:opened`, occurredAt: i.startedAt, componentIds });
    if (inWindow(i.resolvedAt, from, to))
      events.push({ key: `incident:${i.id}:resolved`, occurredAt: i.resolvedAt!, componentIds });
  }
  for (const u of updates) {
    if (isOpeningMessage(u)) continue;
    events.push({ key: `update:${u.id}`, occurredAt: u.createdAt, componentIds: incidentComponents(u.incident) });
  }
  for (const w of windows) {
    const named = w.components.map((c) => c.componentId);
    const componentIds = named.filter((c) => shownSet.has(c));
    if (named.length > 0 && componentIds.length === 0) continue; // touches no component of this page
    if (inWindow(w.createdAt, from, to) && w.createdAt < w.startsAt)
      events.push({ key: `maintenance:${w.id}:scheduled`, occurredAt: w.createdAt, componentIds });
    if (inWindow(w.startsAt, from, to) && w.startsAt < w.endsAt)
      events.push({ key: `maintenance:${w.id}:started`, occurredAt: w.startsAt, componentIds });
    if (inWindow(w.endsAt, from, to))
      events.push({ key: `maintenance:${w.id}:completed`, occurredAt: w.endsAt, componentIds });
  }
  return events;
}

/**
 * A manual incident's opening message: the `message` of POST /incidents, written with the incident in one insert, at
 * its start to the millisecond (both are the request's time), and so its first update. Told with the opening, not
 * again. Any other update is told: a monitor incident's first one too, however soon after the opening it is posted,
 * and a manual incident's first one posted by a later request.
 */
function isOpeningMessage(u: {
  id: string;
  createdAt: Date;
  incident: { source: 'monitor' | 'manual'; startedAt: Date; updates: Array<{ id: string }> };
}): boolean {
  return (
    u.incident.source === 'manual' &&
    u.createdAt.getTime() === u.incident.startedAt.getTime() &&
    u.incident.updates[0]?.id === u.id
  );
}

/**
 * One sweep: for every public page with confirmed subscribers, the events since `from`, one delivery row per
 * subscriber told of each (confirmed by then, following one of its components or all), then every pending
 * delivery of the last day enqueued (job ids dedupe, so a delivery already queued is not added twice; this is also
 * how a confirmation whose enqueue failed in the API gets sent). The unique (subscriber, event) key makes a
 * repeated or overlapping sweep harmless.
 */
export async function sweepSubscribers(
  deps: { prisma: PrismaClient; queue: SubscriberQueue; logger: Logger },
  from: Date,
  to: Date,
): Promise<{ created: number; enqueued: number }> {
  const { prisma } = deps;
  const pages = await prisma.statusPage.findMany({
    where: { isPublic: true, subscribers: { some: { confirmedAt: { not: null } } } },
    select: { id: true, workspaceId: true },
  });
  let created = 0;
  for (const page of pages) {
    const events = await pageEvents(prisma, page, from, to);
    if (!events.length) continue;
    const subscribers = await prisma.statusPageSubscriber.findMany({
      where: { statusPageId: page.id, confirmedAt: { not: null } },
      select: { id: true, confirmedAt: true, components: { select: { componentId: true } } },
    });
    const rows = events.flatMap((e) =>
      subscribers
        .filter(
          (s) =>
            s.confirmedAt! <= e.occurredAt &&
            (s.components.length === 0 ||
              e.componentIds.length === 0 ||
              s.components.some((c) => e.componentIds.includes(c.componentId))),
        )
        .map((s) => ({ subscriberId: s.id, eventKey: e.key })),
    );
    if (rows.length)
      created += (await prisma.subscriberDelivery.createMany({ data: rows, skipDuplicates: true })).count;
  }
  const pending = await prisma.subscriberDelivery.findMany({
    where: { status: 'pending', createdAt: { gt: new Date(to.getTime() - REENQUEUE_WINDOW_MS) } },
    orderBy: { createdAt: 'asc' },
    take: REENQUEUE_MAX,
    select: { id: true },
  });
  await deps.queue.enqueue(pending.map((p) => p.id));
  if (created) deps.logger.info('subscriber notifications stored', { created, enqueued: pending.length });
  return { created, enqueued: pending.length };
}
