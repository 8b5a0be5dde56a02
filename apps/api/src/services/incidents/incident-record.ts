import type { Prisma } from '@statusvane/shared';

export const incidentRecordSelect = {
  id: true,
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

export function toIncidentRecord(row: IncidentRow) {
  return {
    id: row.id,
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
export type IncidentRecord = ReturnType<typeof toIncidentRecord>;
