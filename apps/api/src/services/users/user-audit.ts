import type { Prisma } from '@statusvane/shared';
import { recordAuditEvent } from '../audit/record-write.js';
import type { AuditActor } from '../auth/context.js';

/**
 * Records a change of a user's own account (`user.password_changed`, `user.two_factor_enabled` ...) in every workspace
 * the user belongs to, with the user as actor (or `actor`: the admin CLI resetting a user's second factor): a
 * workspace's managers see what happened to their members' sign-in. Nothing secret is in the event.
 */
export async function recordUserEvent(
  tx: Prisma.TransactionClient,
  user: { id: string; email: string; name: string | null },
  action: string,
  now: Date,
  actor: AuditActor = { type: 'user', id: user.id, name: user.name || user.email },
): Promise<void> {
  const memberships = await tx.membership.findMany({ where: { userId: user.id }, select: { workspaceId: true } });
  for (const { workspaceId } of memberships) {
    await recordAuditEvent(
      tx,
      { workspace: { id: workspaceId }, actor, now },
      { resourceType: 'user', resourceId: user.id, action },
    );
  }
}
