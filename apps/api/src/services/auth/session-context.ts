import { hotQuery, hotStatement, type PrismaClient, type Role } from '@statusvane/shared';
import type { ServiceContext, UserServiceContext } from '../context.js';
import type { ConsoleSession } from '../users/sessions.js';

export interface UserWorkspace {
  slug: string;
  name: string;
  role: Role;
}

// Each membership with its workspace in one statement (ADR 0021), where Prisma read the two tables one after the other.
const USER_WORKSPACES = hotStatement(`
  SELECT w.slug, w.name, m.role::text AS role FROM memberships m JOIN workspaces w ON w.id = m."workspaceId"
  WHERE m."userId" = $1`);

/** The workspaces a user is a member of, with their live roles, by name. */
export async function userWorkspaces(prisma: PrismaClient, userId: string): Promise<UserWorkspace[]> {
  const rows = await hotQuery<UserWorkspace>(prisma, USER_WORKSPACES, [userId]);
  return rows.sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug));
}

/**
 * The ServiceContext of a console request in the workspace its session was read for (readSession's `slug`): the
 * session's user with the role their membership has now (read with the session, never cached: a removed member loses
 * the workspace on their next request, a demoted one their write rights). Null when the user is not a member, whether
 * or not the workspace exists.
 */
export function sessionWorkspaceContext(session: ConsoleSession, now: Date): ServiceContext | null {
  const { user, membership } = session;
  if (!membership) return null;
  return {
    workspace: { ...membership.workspace },
    role: membership.role,
    tokenId: session.id,
    tokenKind: 'session',
    userId: user.id,
    principal: `user:${user.id}`,
    actor: { type: 'user', id: user.id, name: user.name || user.email },
    now,
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
