import type { Prisma } from '@statusvane/shared';
import { recordAuditEvent } from '../audit/record-write.js';

/**
 * Records a change of a user's own account (`user.password_changed`, `user.two_factor_enabled` ...) in every workspace
 * the user belongs to, with the user as actor: a workspace's managers see what happened to their members' sign-in.
 * Nothing secret is in the event.
 */
export async function recordUserEvent(
  tx: Prisma.TransactionClient,
  user: { id: string; email: string; name: string | null },
  action: string,
  now: Date,
): Promise<void> {
  const memberships = await tx.membership.findMany({ where: { userId: user.id }, select: { workspaceId: true } });
  for (const { workspaceId } of memberships) {
    await recordAuditEvent(
      tx,
      { workspace: { id: workspaceId }, actor: { type: 'user', id: user.id, name: user.name || user.email }, now },
      { resourceType: 'user', resourceId: user.id, action },
    );
  }
}
