import type { Config, PrismaClient } from '@statusvane/shared';
import { claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { z } from '../../schemas/zod.js';
import { replaceCalendarToken } from './calendar-feed-url.js';
import { scheduleLookup } from './schedule-record.js';

export const calendarTokenRecordSchema = z
  .object({
    url: z
      .string()
      .nullable()
      .openapi({
        description:
          'The feed, `<PUBLIC_BASE_URL>/ical/<token>.ics`: shown in this answer only. A replay of the request (same ' +
          '`Idempotency-Key`) answers null: create another if it was lost.',
      }),
  })
  .openapi('CalendarFeed');
export type CalendarTokenRecord = z.infer<typeof calendarTokenRecordSchema>;

/**
 * POST /schedules/{id}/calendar-token (managers) -> 201 `{ url }`, shown once: an iCalendar feed of the schedule's
 * next 90 days. Replaces the schedule's previous feed URL. Recorded on the schedule (`schedule.calendar_token_created`).
 */
export async function createCalendarToken(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<CalendarTokenRecord> {
  assertCan(ctx.role, 'schedules:manage');
  const schedule = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  return deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, { ...ctx, ifMatch: undefined }, 'schedule', schedule.id);
    const url = await replaceCalendarToken(tx, deps.config.publicBaseUrl, { scheduleId: schedule.id });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'schedule',
      resourceId: schedule.id,
      action: 'calendar_token_created',
      changes: { calendarFeed: { from: schedule.calendarToken !== null, to: true } },
    });
    // The stored answer of an Idempotency-Key never holds the URL (its token is the feed's secret).
    await ctx.inTransaction?.(tx, { url }, { url: null });
    return { url };
  });
}
