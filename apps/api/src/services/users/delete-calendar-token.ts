import { ForbiddenError, NotFoundError, type PrismaClient } from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { recordUserEvent } from './user-audit.js';

/** DELETE /me/calendar-token -> 204: the caller's feed URL answers 404 from now on; none: 404. */
export async function deleteMyCalendarToken(
  deps: { prisma: PrismaClient },
  { ctx }: { ctx: UserServiceContext; input: Record<string, never> },
): Promise<void> {
  if (ctx.readOnly) throw new ForbiddenError('An OAuth token may not revoke a calendar feed');
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.calendarToken.deleteMany({ where: { userId: ctx.userId } });
    if (count === 0) throw new NotFoundError('calendar feed', 'of this user');
    const user = await tx.user.findUniqueOrThrow({
      where: { id: ctx.userId },
      select: { id: true, email: true, name: true },
    });
    await recordUserEvent(tx, user, 'calendar_token_revoked', ctx.now);
  });
}
