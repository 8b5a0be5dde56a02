import {
  hashToken,
  NotFoundError,
  overridesWithin,
  resolveShifts,
  scheduleSpecSelect,
  toScheduleSpec,
  type PrismaClient,
} from '@statusvane/shared';
import { usersById } from '../schedules/schedule-record.js';
import { icalendar, type FeedEvent } from './ical.js';

/** How far ahead a feed reaches (beyond-the-seed section 10), and how far back it looks for a shift still running. */
const AHEAD_MS = 90 * 86_400_000;
const BEHIND_MS = 30 * 86_400_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * GET <PUBLIC_BASE_URL>/ical/<token>.ics: the shifts of the next 90 days (one still running included whole, as far
 * back as 30 days) as iCalendar. A schedule's feed: everyone's shifts; a user's (`POST /me/calendar-token`): their own
 * shifts in every schedule of every workspace they belong to. The token is the credential; unknown or revoked: 404.
 */
export async function getCalendarFeed(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: { now: Date }; input: { token: string } },
): Promise<{ name: string; body: string }> {
  const { prisma } = deps;
  const row = TOKEN.test(input.token)
    ? await prisma.calendarToken.findUnique({
        where: { tokenHash: hashToken(input.token) },
        select: { id: true, scheduleId: true, userId: true, user: { select: { name: true, email: true } } },
      })
    : null;
  if (!row) throw new NotFoundError('calendar feed', 'this address');
  const from = new Date(ctx.now.getTime() - BEHIND_MS);
  const to = new Date(ctx.now.getTime() + AHEAD_MS);
  const schedules = await prisma.schedule.findMany({
    where: row.scheduleId ? { id: row.scheduleId } : { workspace: { memberships: { some: { userId: row.userId! } } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { ...scheduleSpecSelect, workspace: { select: { name: true } } },
  });
  const overrides = await overridesWithin(
    prisma,
    schedules.map((s) => s.id),
    from,
    to,
  );
  const resolved = schedules.flatMap((s) =>
    resolveShifts(
      toScheduleSpec(
        s,
        overrides.filter((o) => o.scheduleId === s.id),
      ),
      from,
      to,
    )
      .filter((shift) => shift.userId !== null && shift.to > ctx.now && (!row.userId || shift.userId === row.userId))
      .map((shift) => ({ schedule: s, shift })),
  );
  const users = await usersById(
    prisma,
    resolved.map((r) => r.shift.userId),
  );
  const events: FeedEvent[] = resolved.map(({ schedule, shift }) => {
    const user = users.get(shift.userId!);
    const who = user ? user.name || user.email : 'someone';
    const layer = schedule.layers.find((l) => l.id === shift.layerId);
    return {
      uid: `${schedule.id}-${shift.userId}-${shift.from.getTime()}@statusvane`,
      start: shift.from,
      end: shift.to,
      summary: row.userId ? `On call: ${schedule.name}` : `On call: ${who}`,
      description: [
        `${who} is on call in "${schedule.name}" (${schedule.workspace.name}).`,
        shift.overrideId ? 'By an override.' : layer ? `Layer: ${layer.name}.` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    };
  });
  events.sort((a, b) => a.start.getTime() - b.start.getTime());
  const name = row.scheduleId
    ? `On call: ${schedules[0]?.name ?? 'schedule'}`
    : `My on-call shifts (${row.user?.email ?? ''})`;
  await prisma.calendarToken.update({ where: { id: row.id }, data: { lastUsedAt: ctx.now } });
  return { name, body: icalendar(name, events, ctx.now) };
}
