import type { Prisma } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../openapi/zod.js';

export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
const INCIDENT_SOURCES = ['monitor', 'manual'] as const;

export const incidentRecordSchema = z
  .object({
    id: z.uuid(),
    version: versionSchema,
    title: z.string().openapi({ description: 'For a monitor incident: `<monitor name> is down`.' }),
    status: z.enum(INCIDENT_STATUSES),
    impact: z.enum(INCIDENT_IMPACTS).openapi({ description: 'Monitor incidents open as `major`.' }),
    source: z.enum(INCIDENT_SOURCES),
    startedAt: dateTime,
    resolvedAt: dateTime.nullable(),
    acknowledgedAt: dateTime.nullable(),
    monitorId: z.uuid().nullable().openapi({ description: 'The monitor that opened it; null for a manual incident.' }),
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: "The monitor's labels, copied when the incident opened." }),
  })
  .openapi('Incident');
export type IncidentRecord = z.infer<typeof incidentRecordSchema>;

/** POST /incidents answers the incident with the components it names (none: the whole workspace). */
export const manualIncidentRecordSchema = incidentRecordSchema
  .extend({
    componentIds: z.array(z.uuid()).openapi({ description: 'The components it affects; empty: every component.' }),
  })
  .openapi('ManualIncident');
export type ManualIncidentRecord = z.infer<typeof manualIncidentRecordSchema>;

export const incidentRecordSelect = {
  id: true,
  version: true,
  title: true,
  status: true,
  impact: true,
  source: true,
  startedAt: true,
  resolvedAt: true,
  acknowledgedAt: true,
  monitorId: true,
  metadata: true,
  /** The escalation policy pinned when it opened (not part of the record). */
  escalationPolicyId: true,
} satisfies Prisma.IncidentSelect;
export type IncidentRow = Prisma.IncidentGetPayload<{ select: typeof incidentRecordSelect }>;

export function toIncidentRecord(row: IncidentRow): IncidentRecord {
  return {
    id: row.id,
    version: row.version,
    title: row.title,
    status: row.status,
    impact: row.impact,
    source: row.source,
    startedAt: row.startedAt.toISOString(),
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
    monitorId: row.monitorId,
    metadata: row.metadata as Record<string, string>,
  };
}
