import { ForbiddenError, NotFoundError, type PrismaClient } from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { recordUserEvent } from '../users/user-audit.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * DELETE /me/connected-apps/{id} -> 204: revokes the grant at once, with every access and refresh token issued under
 * it (the next request with one is 401). Another user's or an unknown id: 404. An OAuth token may not do it.
 */
export async function deleteConnectedApp(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: UserServiceContext; input: { id: string } },
): Promise<void> {
  if (ctx.readOnly) throw new ForbiddenError('An OAuth token may not revoke connected apps');
  const id = input.id.toLowerCase();
  if (!UUID_RE.test(id)) throw new NotFoundError('connected app', input.id);
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.oAuthConnection.deleteMany({ where: { id, userId: ctx.userId } });
    if (count === 0) throw new NotFoundError('connected app', input.id);
    const user = await tx.user.findUniqueOrThrow({
      where: { id: ctx.userId },
      select: { id: true, email: true, name: true },
    });
    await recordUserEvent(tx, user, 'app_disconnected', ctx.now);
  });
}
