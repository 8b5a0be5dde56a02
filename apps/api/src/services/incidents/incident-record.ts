import type { Prisma, PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { AuditActor } from '../auth/context.js';
import type { OwnLookup } from '../records.js';

export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
const INCIDENT_SOURCES = ['monitor', 'manual'] as const;
/** The kinds of actor an audit event names (services/auth/context.ts). */
const ACTOR_TYPES = ['user', 'token', 'cli'] as const satisfies ReadonlyArray<AuditActor['type']>;

const evidenceSchema = z
  .object({
    region: z.string(),
    failing: z.boolean().openapi({ description: 'Whether the region had reached openThreshold when it opened.' }),
    lastResult: z
      .object({
        checkedAt: dateTime,
        status: z.enum(['up', 'degraded', 'down']),
        reason: z.string().nullable(),
        statusCode: z.number().int().nullable(),
        totalMs: z.number().int().nullable(),
        address: z.string().nullable().openapi({
          description:
            'The IP address the check talked to (http and tcp: the one dialled last; dns: the resolver); null when none.',
        }),
      })
      .nullable()
      .openapi({ description: "The region's latest result when the incident opened; null if it had none." }),
  })
  .openapi('IncidentEvidence');

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
    acknowledgedBy: z
      .object({
        type: z.enum(ACTOR_TYPES).openapi({
          description:
            '`user`: a person (console, personal or OAuth token); `token`: an org token; `cli`: the admin CLI.',
        }),
        id: z.string().openapi({ description: "The user's or token's id; for `cli`, the operating-system user." }),
        name: z
          .string()
          .openapi({ description: "Their name as it was when they acknowledged (a user's name or email)." }),
      })
      .nullable()
      .openapi({
        description:
          'Who acknowledged it, as the audit log names them; null until acknowledged (and for incidents acknowledged before ' +
          'this field existed).',
      }),
    monitorId: z.uuid().nullable().openapi({ description: 'The monitor that opened it; null for a manual incident.' }),
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: "The monitor's labels, copied when the incident opened." }),
    reason: z.string().nullable().openapi({
      description:
        'Monitor incidents: the failure reason code of the result that opened it (`status_code`, `timeout`, `dns_nxdomain`, `certificate_expiring`, `heartbeat_missed`, `run_timeout`, ...); null for manual incidents.',
    }),
    evidence: z.array(evidenceSchema).openapi({
      description:
        "Monitor incidents: each of the monitor's regions when it opened, whether it was failing and its last result; empty for manual incidents.",
    }),
    suppressedBy: z.uuid().nullable().openapi({
      description:
        'The open incident of a monitor this one depends on (`dependsOn`) when it opened: this incident pages nobody (its deliveries are `skipped`, reason `dependency_down`).',
    }),
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
  acknowledgedByType: true,
  acknowledgedById: true,
  acknowledgedByName: true,
  monitorId: true,
  metadata: true,
  reason: true,
  evidence: true,
  suppressedById: true,
  /** The escalation policy pinned when it opened (not part of the record). */
  escalationPolicyId: true,
} satisfies Prisma.IncidentSelect;
export type IncidentRow = Prisma.IncidentGetPayload<{ select: typeof incidentRecordSelect }>;

/** findOwn's lookup of one of the caller's incidents. */
export const incidentLookup: OwnLookup<Pick<PrismaClient, 'incident'>, IncidentRow> = {
  noun: 'incident',
  find: (db, where) => db.incident.findFirst({ where, select: incidentRecordSelect }),
};

/** The acknowledging actor as stored (a type outside today's three reads as none rather than a wrong one). */
function acknowledgedByOf(row: IncidentRow): IncidentRecord['acknowledgedBy'] {
  const type = ACTOR_TYPES.find((t) => t === row.acknowledgedByType);
  return type && row.acknowledgedById !== null
    ? { type, id: row.acknowledgedById, name: row.acknowledgedByName ?? '' }
    : null;
}

/** The columns that store who acknowledged: the audit actor of the write, its id and name cut to their columns. */
export const acknowledgedByColumns = (actor: AuditActor) => ({
  acknowledgedByType: actor.type,
  acknowledgedById: actor.id.slice(0, 100),
  acknowledgedByName: actor.name.slice(0, 320),
});

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
    acknowledgedBy: acknowledgedByOf(row),
    monitorId: row.monitorId,
    metadata: row.metadata as Record<string, string>,
    reason: row.reason,
    // Written only by the worker, as EvidenceEntry[] (apps/worker/src/checks/store-result.ts).
    evidence: (row.evidence ?? []) as IncidentRecord['evidence'],
    suppressedBy: row.suppressedById,
  };
}
