/**
 * Who a schedule or user target pages when its step fires (beyond-the-seed section 10): the user on call at that
 * instant (or the named user), through each of their contact methods; the schedule's fallback user when nobody is on
 * call, or when the one on call cannot be reached (no contact method, or no longer a member of the workspace). Every
 * outcome is a delivery row, so the incident's escalation shows it: `skipped` rows with `nobody_on_call`,
 * `no_contact_method`, `not_a_member` or `schedule_not_found`, then the rows of whoever was paged instead.
 */
import { loadScheduleSpec, onCallAt, type PersonChannel, type Prisma } from '@statusvane/shared';

/** One delivery row a person target adds (the caller adds the incident, step, cycle, target and fire time). */
export interface PersonDelivery {
  fanout: string;
  scheduleId: string | null;
  userId: string | null;
  contactMethodId: string | null;
  channel: Prisma.EscalationDeliveryCreateManyInput['channel'];
  target: string;
  status: 'pending' | 'skipped';
  reason: string | null;
}

/** The rows of one schedule or user target at `at`, read in the caller's transaction. */
export async function personDeliveries(
  tx: Prisma.TransactionClient,
  workspaceId: string,
  target: { channel: PersonChannel; id: string },
  at: Date,
): Promise<PersonDelivery[]> {
  const rows: PersonDelivery[] = [];
  let scheduleId: string | null = null;
  let fallback: string | null = null;
  let onCall: string | null;
  if (target.channel === 'schedule') {
    const schedule = await loadScheduleSpec(tx, workspaceId, target.id, at);
    if (!schedule) return [skipped('schedule', target.id, null, null, 'missing', 'schedule_not_found')];
    scheduleId = schedule.id;
    fallback = schedule.fallbackUserId;
    onCall = onCallAt(schedule.spec, at).userId;
    if (!onCall) rows.push(skipped('schedule', schedule.id, schedule.id, null, 'nobody', 'nobody_on_call'));
  } else onCall = target.id;

  const reach = async (userId: string): Promise<boolean> => {
    const member = await tx.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      select: { id: true },
    });
    if (!member) {
      // A user who left the workspace is never paged about it (nor told its incidents).
      rows.push(skipped('user', userId, scheduleId, userId, `${userId}:none`, 'not_a_member'));
      return false;
    }
    const methods = await tx.contactMethod.findMany({
      where: { userId },
      orderBy: { position: 'asc' },
      select: { id: true, channel: true, display: true },
    });
    if (methods.length === 0) {
      rows.push(skipped('user', userId, scheduleId, userId, `${userId}:none`, 'no_contact_method'));
      return false;
    }
    for (const m of methods)
      rows.push({
        fanout: `${userId}:${m.id}`,
        scheduleId,
        userId,
        contactMethodId: m.id,
        channel: m.channel,
        target: m.display,
        status: 'pending',
        reason: null,
      });
    return true;
  };

  if (onCall && (await reach(onCall))) return rows;
  if (fallback && fallback !== onCall) await reach(fallback);
  return rows;
}

function skipped(
  channel: PersonChannel,
  shown: string,
  scheduleId: string | null,
  userId: string | null,
  fanout: string,
  reason: string,
): PersonDelivery {
  return { fanout, scheduleId, userId, contactMethodId: null, channel, target: shown, status: 'skipped', reason };
}
