import type { PlanName, PrismaClient, Role } from '@statusvane/shared';
import type { ServiceContext, UserServiceContext } from '../context.js';
import type { ConsoleSession } from '../users/sessions.js';

export interface UserWorkspace {
  slug: string;
  name: string;
  role: Role;
}

/** The workspaces a user is a member of, with their live roles, by name. */
export async function userWorkspaces(prisma: PrismaClient, userId: string): Promise<UserWorkspace[]> {
  const rows = await prisma.membership.findMany({
    where: { userId },
    select: { role: true, workspace: { select: { slug: true, name: true } } },
  });
  return rows
    .map((r) => ({ slug: r.workspace.slug, name: r.workspace.name, role: r.role }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug));
}

/**
 * The ServiceContext of a console request in workspace `slug`: the session's user with their membership's role read
 * now (never cached: a removed member loses the workspace on their next request, a demoted one their write rights).
 * Null when the user is not a member, whether or not the workspace exists.
 */
export async function sessionWorkspaceContext(
  prisma: PrismaClient,
  input: { session: ConsoleSession; slug: string; now: Date },
): Promise<ServiceContext | null> {
  const { user } = input.session;
  const membership = await prisma.membership.findFirst({
    where: { userId: user.id, workspace: { slug: input.slug.toLowerCase() } },
    select: { role: true, workspace: { select: { id: true, slug: true, name: true, plan: true } } },
  });
  if (!membership) return null;
  return {
    workspace: { ...membership.workspace, plan: membership.workspace.plan as PlanName },
    role: membership.role,
    tokenId: input.session.id,
    tokenKind: 'session',
    userId: user.id,
    principal: `user:${user.id}`,
    actor: { type: 'user', id: user.id, name: user.name || user.email },
    now: input.now,
  };
}

/** The UserServiceContext of a console request for the person's own settings (`/me/...` verbs): in no workspace. */
export function sessionUserContext(session: ConsoleSession, now: Date): UserServiceContext {
  const { user } = session;
  return {
    userId: user.id,
    tokenId: session.id,
    tokenKind: 'session',
    principal: `user:${user.id}`,
    actor: { type: 'user', id: user.id, name: user.name || user.email },
    readOnly: false,
    now,
  };
}
