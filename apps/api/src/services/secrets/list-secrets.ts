import type { PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { secretRecordSelect, secretUsers, toSecretRecord } from './secret-record.js';

/** GET /secrets: the workspace's secrets by name (hosts and `usedBy`, never a value). */
export async function listSecrets(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: PaginationQuery },
) {
  const where = { workspaceId: ctx.workspace.id };
  const page = await listPage(
    deps.prisma,
    input,
    (window) => [
      deps.prisma.workspaceSecret.count({ where }),
      deps.prisma.workspaceSecret.findMany({ where, orderBy: { name: 'asc' }, select: secretRecordSelect, ...window }),
    ],
    (rows) => rows,
  );
  const users = await secretUsers(
    deps.prisma,
    ctx.workspace.id,
    page.data.map((r) => r.name),
  );
  return { ...page, data: page.data.map((r) => toSecretRecord(r, users.get(r.name) ?? [])) };
}
