import {
  DEGRADED_POLICIES,
  isTimezone,
  MAINTENANCE_POLICIES,
  NO_DATA_POLICIES,
  type AccountingSettings,
} from '@statusvane/shared';
import { versionSchema, z } from '../../schemas/zod.js';

const recipients = z
  .array(z.email().max(320))
  .max(20)
  .refine((list) => new Set(list.map((e) => e.toLowerCase())).size === list.length, 'must not repeat an address');

/** PUT /settings/accounting: the whole policy; an omitted field goes back to its default. */
export const accountingSettingsInputSchema = z
  .object({
    maintenance: z
      .enum(MAINTENANCE_POLICIES)
      .default('excluded')
      .openapi({
        description:
          'Time in a maintenance window covering the monitor: `excluded` from the figure (default), counted `up`, or ' +
          'counted `down`.',
      }),
    degraded: z
      .enum(DEGRADED_POLICIES)
      .default('up')
      .openapi({ description: 'Degraded time (slow, or failing without an incident): `up` (default) or `down`.' }),
    noData: z.enum(NO_DATA_POLICIES).default('excluded').openapi({
      description:
        'Time without data (before creation, paused, slots no region could check): `excluded` (default), `up` or `down`.',
    }),
    timezone: z
      .string()
      .max(64)
      .refine(isTimezone, 'must be an IANA timezone such as Europe/Berlin or UTC')
      .default('UTC')
      .openapi({ description: 'The IANA timezone of report periods and of the monthly mail (default UTC).' }),
    reportRecipients: recipients.default([]).openapi({
      description: 'Up to 20 addresses that get the monthly report on the 1st at 06:00 in `timezone` (default none).',
    }),
  })
  .strict()
  .openapi('AccountingSettingsInput', {
    description:
      "The workspace's uptime accounting policy: PUT /settings/accounting's body, and `accounting` in a config " +
      'document (fields left out take their defaults).',
  });
export type AccountingSettingsInput = z.output<typeof accountingSettingsInputSchema>;

export const accountingSettingsSchema = z
  .object({
    maintenance: z.enum(MAINTENANCE_POLICIES),
    degraded: z.enum(DEGRADED_POLICIES),
    noData: z.enum(NO_DATA_POLICIES),
    timezone: z.string(),
    reportRecipients: z.array(z.string()),
    version: versionSchema,
  })
  .openapi('AccountingSettings', {
    description:
      'How uptime is counted in this workspace (docs/decisions.md, "Uptime accounting"): every uptime figure names ' +
      'the policy and version it used.',
  });
export type AccountingSettingsRecord = z.infer<typeof accountingSettingsSchema>;

export const toAccountingSettingsRecord = (s: AccountingSettings): AccountingSettingsRecord => ({
  maintenance: s.maintenance,
  degraded: s.degraded,
  noData: s.noData,
  timezone: s.timezone,
  reportRecipients: [...s.reportRecipients],
  version: s.version,
});
