import {
  ConflictError,
  loadAccountingSettings,
  startOfLocalDate,
  ValidationError,
  type PrismaClient,
} from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { MAX_DAYS_BACK } from './report-range.js';

export const sendUptimeReportInputSchema = z
  .object({
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month, YYYY-MM')
      .openapi({ description: "The month to report, in the policy's timezone (`2026-10`)." }),
  })
  .strict()
  .openapi('SendUptimeReportInput');

export const uptimeReportMailSchema = z
  .object({
    id: z.uuid(),
    month: z.string(),
    recipients: z.array(z.string()),
    status: z.enum(['pending', 'sending', 'sent', 'failed']),
    createdAt: dateTime,
  })
  .openapi('UptimeReportMail', {
    description: 'A report mail queued: a worker sends it within a minute (the table of the month and its CSV).',
  });
export type UptimeReportMailRecord = z.infer<typeof uptimeReportMailSchema>;

/**
 * POST /reports/uptime/send: queues the mail of one month's report to the policy's `reportRecipients` now (the
 * scheduled one goes out on the 1st by itself); 409 when there are none. The month must have started, and within
 * 400 days.
 */
export async function sendUptimeReport(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: z.output<typeof sendUptimeReportInputSchema> },
): Promise<UptimeReportMailRecord> {
  assertCan(ctx.role, 'reports:manage');
  const settings = await loadAccountingSettings(prisma, ctx.workspace.id);
  const start = startOfLocalDate(`${input.month}-01`, settings.timezone)!;
  const earliest = ctx.now.getTime() - (MAX_DAYS_BACK + 31) * 86_400_000;
  if (start > ctx.now.getTime() || start < earliest)
    throw new ValidationError('Invalid request: month', [
      { path: 'month', message: `must have started, and at most ${MAX_DAYS_BACK} days ago` },
    ]);
  if (settings.reportRecipients.length === 0)
    throw new ConflictError('The accounting policy has no reportRecipients: add some with PUT /settings/accounting');
  return prisma.$transaction(async (tx) => {
    const row = await tx.uptimeReportMail.create({
      data: {
        workspaceId: ctx.workspace.id,
        month: input.month,
        scheduled: false,
        recipients: settings.reportRecipients,
        createdAt: ctx.now,
      },
    });
    const record: UptimeReportMailRecord = {
      id: row.id,
      month: row.month,
      recipients: row.recipients,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
    };
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}
