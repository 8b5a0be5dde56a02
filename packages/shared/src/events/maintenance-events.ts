import type { Prisma } from '../generated/prisma/client.js';
import { recordEvents, type NewEvent } from './record-event.js';

interface Window {
  id: string;
  workspaceId: string;
  title: string;
  startsAt: Date;
  endsAt: Date;
  cancelledAt: Date | null;
  componentIds: string[];
}

const maintenanceData = (w: Window) => ({
  maintenance: {
    id: w.id,
    title: w.title,
    startsAt: w.startsAt.toISOString(),
    endsAt: w.endsAt.toISOString(),
    cancelledAt: w.cancelledAt?.toISOString() ?? null,
    componentIds: w.componentIds,
  },
});

/**
 * maintenance.started / completed are time passing, not a write: recorded once each (keyed), by the API when an
 * action or an edit puts the time at or before `now`, and by housekeeping when the clock reaches it. A cancelled
 * window records maintenance.cancelled (by the API, when cancelled) and neither of the others afterwards.
 */
export async function recordMaintenanceTransitions(tx: Prisma.TransactionClient, w: Window, now: Date): Promise<void> {
  if (w.cancelledAt) return;
  const base = { workspaceId: w.workspaceId, subject: `maintenance/${w.id}`, data: maintenanceData(w) };
  const events: NewEvent[] = [];
  if (w.startsAt <= now && w.startsAt < w.endsAt)
    events.push({ ...base, type: 'maintenance.started', key: `maintenance:${w.id}:started` });
  if (w.endsAt <= now) events.push({ ...base, type: 'maintenance.completed', key: `maintenance:${w.id}:completed` });
  await recordEvents(tx, events);
}

export async function recordMaintenanceCancelled(tx: Prisma.TransactionClient, w: Window): Promise<void> {
  await recordEvents(tx, [
    {
      workspaceId: w.workspaceId,
      type: 'maintenance.cancelled',
      subject: `maintenance/${w.id}`,
      data: maintenanceData(w),
      key: `maintenance:${w.id}:cancelled`,
    },
  ]);
}
