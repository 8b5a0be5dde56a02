import {
  parseOrThrow,
  uuidInputSchema,
  ValidationError,
  type EscalationScheduler,
  type PrismaClient,
} from '@statusvane/shared';
import { z } from 'zod';
import type { RequestContext } from '../auth/context.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnIncident } from './find-incident.js';
import { toIncidentRecord, type IncidentRecord } from './incident-record.js';
import { resolveIncident } from './resolve-incident.js';

export const INCIDENT_UPDATE_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;

export const incidentUpdateInputSchema = z
  .object({
    status: z.enum(INCIDENT_UPDATE_STATUSES),
    message: z.string().trim().min(1).max(5000),
  })
  .strict();

const updateSelect = { id: true, incidentId: true, status: true, message: true, createdAt: true } as const;
type UpdateRow = { id: string; incidentId: string; status: string; message: string; createdAt: Date };
export const toIncidentUpdateRecord = (u: UpdateRow) => ({
  id: u.id,
  incidentId: u.incidentId,
  status: u.status as (typeof INCIDENT_UPDATE_STATUSES)[number],
  message: u.message,
  createdAt: u.createdAt.toISOString(),
});
export type IncidentUpdateRecord = ReturnType<typeof toIncidentUpdateRecord>;

/**
 * POST /incidents/{id}/updates (writers) -> 201. A `resolved` update resolves the incident first (the same path as
 * POST /incidents/{id}/resolve: ladder stopped, monitor counters reset), then records the message; resolving is
 * idempotent, so a retry after a failure between the two completes the pair. Updates may follow a resolved
 * incident (a post-incident note); a non-resolved status does not reopen it. Subscribers hear of it from the
 * worker's sweep (docs/maintenance-and-status-pages.md).
 */
export async function createIncidentUpdate(
  prisma: PrismaClient,
  {
    ctx,
    id,
    body,
    escalations,
    now = new Date(),
  }: { ctx: RequestContext; id: string; body: unknown; escalations?: EscalationScheduler; now?: Date },
): Promise<IncidentUpdateRecord> {
  assertCan(ctx.role, 'incidents:respond');
  const incident = await findOwnIncident(prisma, ctx, id);
  const input = parseOrThrow(incidentUpdateInputSchema, body, 'incident update');
  if (input.status === 'resolved' && incident.status !== 'resolved')
    await resolveIncident(prisma, { ctx, id: incident.id, ...(escalations ? { escalations } : {}), now });
  const row = await prisma.incidentUpdate.create({
    data: { incidentId: incident.id, status: input.status, message: input.message, createdAt: now },
    select: updateSelect,
  });
  return toIncidentUpdateRecord(row);
}

/** GET /incidents/{id}/updates: oldest first (any role). */
export async function listIncidentUpdates(
  prisma: PrismaClient,
  { ctx, id }: { ctx: RequestContext; id: string },
): Promise<IncidentUpdateRecord[]> {
  const incident = await findOwnIncident(prisma, ctx, id);
  const rows = await prisma.incidentUpdate.findMany({
    where: { incidentId: incident.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: updateSelect,
  });
  return rows.map(toIncidentUpdateRecord);
}

export const manualIncidentInputSchema = z
  .object({
    title: z.string().trim().min(1).max(300),
    impact: z.enum(['none', 'minor', 'major', 'critical']).default('major'),
    componentIds: z.array(uuidInputSchema).max(200).optional(),
    message: z.string().trim().min(1).max(5000).optional(),
  })
  .strict();

/**
 * POST /incidents (writers): a manual incident -> 201, `source: "manual"`, with `componentIds` (none: the whole
 * workspace, shown on every page); its first update (`investigating`) is `message` when given. Unknown, foreign and
 * repeated component ids are each a 400 at `componentIds[i]` (unknown and foreign read the same). Written in one
 * transaction.
 */
export async function createManualIncident(
  prisma: PrismaClient,
  { ctx, body, now = new Date() }: { ctx: RequestContext; body: unknown; now?: Date },
): Promise<IncidentRecord & { componentIds: string[] }> {
  assertCan(ctx.role, 'incidents:respond');
  const input = parseOrThrow(manualIncidentInputSchema, body, 'incident');
  const ids = input.componentIds ?? [];
  const own = new Set(
    (
      await prisma.component.findMany({
        where: { workspaceId: ctx.workspace.id, id: { in: ids } },
        select: { id: true },
      })
    ).map((c) => c.id),
  );
  const issues = ids.flatMap((cid, i) =>
    ids.indexOf(cid) !== i
      ? [{ path: `componentIds[${i}]`, message: 'Repeated component id' }]
      : own.has(cid)
        ? []
        : [{ path: `componentIds[${i}]`, message: 'No such component in this workspace' }],
  );
  if (issues.length) throw new ValidationError('Invalid incident: componentIds', issues);
  const created = await prisma.incident.create({
    data: {
      workspaceId: ctx.workspace.id,
      title: input.title,
      impact: input.impact,
      source: 'manual',
      startedAt: now,
      components: { create: ids.map((componentId) => ({ componentId })) },
      ...(input.message
        ? { updates: { create: { status: 'investigating', message: input.message, createdAt: now } } }
        : {}),
    },
    select: { id: true },
  });
  const row = await findOwnIncident(prisma, ctx, created.id);
  return { ...toIncidentRecord(row), componentIds: ids };
}
