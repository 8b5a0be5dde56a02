import { ForbiddenError, type Config, type PrismaClient } from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import type { CalendarTokenRecord } from '../schedules/create-calendar-token.js';
import { replaceCalendarToken } from '../schedules/calendar-feed-url.js';
import { recordUserEvent } from './user-audit.js';

/**
 * POST /me/calendar-token -> 201 `{ url }`, shown once: an iCalendar feed of the caller's own shifts in every
 * schedule of every workspace they belong to, for the next 90 days. Replaces their previous feed URL.
 */
export async function createMyCalendarToken(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx }: { ctx: UserServiceContext; input: Record<string, never> },
): Promise<CalendarTokenRecord> {
  if (ctx.readOnly) throw new ForbiddenError('An OAuth token may not create a calendar feed');
  return deps.prisma.$transaction(async (tx) => {
    const user = await tx.user.findUniqueOrThrow({
      where: { id: ctx.userId },
      select: { id: true, email: true, name: true },
    });
    const url = await replaceCalendarToken(tx, deps.config.publicBaseUrl, { userId: ctx.userId });
    await recordUserEvent(tx, user, 'calendar_token_created', ctx.now);
    return { url };
  });
}
