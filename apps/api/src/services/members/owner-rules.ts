import { ConflictError, ForbiddenError, NotFoundError, type Prisma, type Role } from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';

/**
 * The owner rules of a role change or a removal, judged in its transaction on locked rows: only an owner grants the
 * owner role or takes it away (403 for an admin); the workspace's last owner can be neither demoted nor removed
 * (409). The owners' rows are locked first, in id order, then the member's: two owners demoting each other at once
 * cannot both succeed (the second re-reads the first's change and finds one owner left), and no two such
 * transactions wait on each other in a circle. `to`: the new role, or null for a removal. Returns the membership id.
 */
export async function lockMemberForChange(
  tx: Prisma.TransactionClient,
  ctx: Pick<RequestContext, 'workspace' | 'role'>,
  userId: string,
  to: Role | null,
): Promise<string> {
  const owners = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id::text AS id FROM memberships
     WHERE "workspaceId" = ${ctx.workspace.id}::uuid AND role = 'owner'::"Role" ORDER BY id FOR UPDATE`;
  const [member] = await tx.$queryRaw<Array<{ id: string; role: Role }>>`
    SELECT id::text AS id, role::text AS role FROM memberships
     WHERE "workspaceId" = ${ctx.workspace.id}::uuid AND "userId" = ${userId}::uuid FOR UPDATE`;
  if (!member) throw new NotFoundError('member', userId);
  if ((member.role === 'owner' || to === 'owner') && ctx.role !== 'owner')
    throw new ForbiddenError('Only an owner may grant or remove the owner role');
  if (member.role === 'owner' && to !== 'owner' && owners.length === 1 && owners[0]!.id === member.id)
    throw new ConflictError('The last owner of a workspace can be neither demoted nor removed', {
      reason: 'last_owner',
    });
  return member.id;
}

/** Only an owner grants the owner role (403 for an admin). */
export function assertMayGrant(ctx: Pick<RequestContext, 'role'>, role: Role): void {
  if (role === 'owner' && ctx.role !== 'owner') throw new ForbiddenError('Only an owner may grant the owner role');
}
