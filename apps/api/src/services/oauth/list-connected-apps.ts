import type { PrismaClient } from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { connectedAppSelect, toConnectedAppRecord, type ConnectedAppRecord } from './connected-app-record.js';

/** GET /me/connected-apps: the apps the caller allowed through OAuth, newest first, with the workspaces granted. */
export async function listConnectedApps(
  deps: { prisma: PrismaClient },
  { ctx }: { ctx: UserServiceContext; input: Record<string, never> },
): Promise<ConnectedAppRecord[]> {
  const [rows, memberships] = await Promise.all([
    deps.prisma.oAuthConnection.findMany({
      where: { userId: ctx.userId },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      select: connectedAppSelect,
    }),
    deps.prisma.membership.findMany({
      where: { userId: ctx.userId },
      select: { workspace: { select: { id: true, slug: true, name: true } } },
    }),
  ]);
  const workspaces = new Map(memberships.map((m) => [m.workspace.id, m.workspace]));
  return rows.map((row) => toConnectedAppRecord(row, workspaces));
}
