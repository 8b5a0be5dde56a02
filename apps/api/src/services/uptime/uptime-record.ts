import {
  DEGRADED_POLICIES,
  isoMemo,
  MAINTENANCE_POLICIES,
  NO_DATA_POLICIES,
  type NamedPolicy,
  type PeriodFigures,
  type UptimeAccount,
} from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';

/** The policy a figure was counted with, named in every uptime answer. */
export const namedPolicySchema = z
  .object({
    maintenance: z.enum(MAINTENANCE_POLICIES),
    degraded: z.enum(DEGRADED_POLICIES),
    noData: z.enum(NO_DATA_POLICIES),
    version: z.number().int().min(1).openapi({ description: "The accounting policy's version these figures used." }),
  })
  .openapi('AccountingPolicyUsed', {
    description: 'The workspace accounting policy (GET /settings/accounting) the figures were counted with.',
  });

const seconds = (description: string) => z.number().int().min(0).openapi({ description });

export const uptimePeriodSchema = z
  .object({
    from: dateTime.openapi({ description: 'Start (inclusive): a local midnight, or the `from` asked for.' }),
    to: dateTime.openapi({
      description: 'End (exclusive): the next local midnight, or the `to` asked for, or the moment of the request.',
    }),
    uptimePercent: z
      .number()
      .nullable()
      .openapi({
        description:
          'Seconds counted as up / countedSeconds * 100, truncated to 4 decimals (never rounded up to 100); null when the ' +
          'policy counts no second of the period.',
      }),
    countedSeconds: seconds('Seconds the policy does not exclude (maintenance and no data may be excluded).'),
    upSeconds: seconds('Seconds up: no incident, results passing.'),
    degradedSeconds: seconds('Seconds degraded: results slow or failing without an incident.'),
    downSeconds: seconds("Seconds down: from the first failing result of an incident's opening to its resolution."),
    maintenanceSeconds: seconds('Seconds in a maintenance window covering the monitor.'),
    noDataSeconds: seconds('Seconds before creation, paused, or in slots no region could check.'),
    incidents: z
      .array(z.uuid())
      .openapi({ description: 'The monitor incidents with down time in the period, by start.' }),
    slaMet: z.boolean().nullable().optional().openapi({
      description: 'With `slaTarget`: whether uptimePercent reached it (null when nothing is counted).',
    }),
    errorBudgetSeconds: z.number().optional().openapi({
      description: 'With `slaTarget`: countedSeconds * (100 - slaTarget) / 100, to the millisecond.',
    }),
    errorBudgetRemainingSeconds: z.number().optional().openapi({
      description: 'With `slaTarget`: the budget less the seconds counted not up (negative once overspent).',
    }),
  })
  .openapi('UptimePeriod');
export type UptimePeriodRecord = z.infer<typeof uptimePeriodSchema>;

export const monitorUptimeSchema = z
  .object({
    policy: namedPolicySchema,
    timezone: z.string().openapi({ description: 'The IANA timezone the periods follow.' }),
    total: uptimePeriodSchema.openapi({ description: 'The whole range asked for, as one period.' }),
    periods: z.array(uptimePeriodSchema),
  })
  .openapi('MonitorUptime');
export type MonitorUptimeRecord = z.infer<typeof monitorUptimeSchema>;

export const uptimeReportRowSchema = monitorUptimeSchema
  .extend({
    monitorId: z.uuid(),
    monitorName: z.string(),
    slaTarget: z.number().nullable(),
  })
  .openapi('UptimeReportRow');
export type UptimeReportRow = z.infer<typeof uptimeReportRowSchema>;

/** A period as the API shows it; `iso` formats the bounds (isoMemo: shared by the monitors of a report). */
export function toPeriodRecord(p: PeriodFigures, iso: (ms: number) => string = isoMemo()): UptimePeriodRecord {
  return { ...p, from: iso(p.from), to: iso(p.to) };
}

export function toMonitorUptime(
  account: UptimeAccount,
  policy: NamedPolicy,
  timezone: string,
  iso: (ms: number) => string = isoMemo(),
): MonitorUptimeRecord {
  return {
    policy,
    timezone,
    total: toPeriodRecord(account.total, iso),
    periods: account.periods.map((p) => toPeriodRecord(p, iso)),
  };
}
