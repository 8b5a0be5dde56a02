import type { PrismaClient } from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { scopeCovers, type OAuthScopeName } from './oauth-rules.js';

/** A workspace the consent page offers: one the user is a member of. */
export interface ConsentWorkspace {
  id: string;
  slug: string;
  name: string;
}

/** What the consent page needs: the user's workspaces, what they consented to before, and whether that covers this. */
export interface Consent {
  workspaces: ConsentWorkspace[];
  previous: { scope: OAuthScopeName; workspaceIds: string[]; primaryWorkspaceId: string } | null;
  /** The previous consent covers the request: no page is shown, the code is issued at once. */
  covered: boolean;
}

/**
 * The consent state of the signed-in user for a client. The previous consent covers a request when it granted the
 * scope asked (write covers read) and the user has joined no workspace since (a new workspace asks again), its
 * primary workspace still being theirs.
 */
export async function getConsent(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: UserServiceContext; input: { clientId: string; scope: OAuthScopeName } },
): Promise<Consent> {
  const [memberships, connection] = await Promise.all([
    deps.prisma.membership.findMany({
      where: { userId: ctx.userId },
      select: { createdAt: true, workspace: { select: { id: true, slug: true, name: true } } },
    }),
    deps.prisma.oAuthConnection.findUnique({
      where: { userId_clientId: { userId: ctx.userId, clientId: input.clientId } },
      select: { scope: true, workspaceIds: true, primaryWorkspaceId: true, updatedAt: true },
    }),
  ]);
  const workspaces = memberships
    .map((m) => m.workspace)
    .sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug));
  const covered =
    !!connection &&
    scopeCovers(connection.scope, input.scope) &&
    workspaces.some((w) => w.id === connection.primaryWorkspaceId) &&
    memberships.every((m) => m.createdAt <= connection.updatedAt);
  return {
    workspaces,
    previous: connection
      ? {
          scope: connection.scope,
          workspaceIds: connection.workspaceIds,
          primaryWorkspaceId: connection.primaryWorkspaceId,
        }
      : null,
    covered,
  };
}
