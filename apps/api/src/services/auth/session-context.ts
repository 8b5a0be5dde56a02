import { hotQuery, hotStatement, type PlanName, type PrismaClient, type Role } from '@statusvane/shared';
import type { ServiceContext, UserServiceContext } from '../context.js';
import type { ConsoleSession } from '../users/sessions.js';

export interface UserWorkspace {
  slug: string;
  name: string;
  role: Role;
}

// Every console page reads the user's workspaces and the one in its path: each membership with its workspace in one
// statement, on the hot path (ADR 0021), where Prisma read the two tables one after the other and mapped both.
const USER_WORKSPACES = hotStatement(`
  SELECT w.slug, w.name, m.role::text AS role FROM memberships m JOIN workspaces w ON w.id = m."workspaceId"
  WHERE m."userId" = $1`);
const MEMBER_WORKSPACE = hotStatement(`
  SELECT m.role::text AS role, w.id, w.slug, w.name, w.plan::text AS plan
  FROM memberships m JOIN workspaces w ON w.id = m."workspaceId" WHERE m."userId" = $1 AND w.slug = $2`);

/** The workspaces a user is a member of, with their live roles, by name. */
export async function userWorkspaces(prisma: PrismaClient, userId: string): Promise<UserWorkspace[]> {
  const rows = await hotQuery<UserWorkspace>(prisma, USER_WORKSPACES, [userId]);
  return rows.sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug));
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
  const [membership] = await hotQuery<{ role: Role; id: string; slug: string; name: string; plan: PlanName }>(
    prisma,
    MEMBER_WORKSPACE,
    [user.id, input.slug.toLowerCase()],
  );
  if (!membership) return null;
  return {
    workspace: { id: membership.id, slug: membership.slug, name: membership.name, plan: membership.plan },
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
