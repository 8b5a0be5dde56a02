import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwnStatusPage } from '../status-pages/find-status-page.js';

/** One of the caller's status pages; a malformed or foreign id is the same 404 as a missing one. */
export async function findOwnPageId(prisma: PrismaClient, ctx: ServiceContext, id: string): Promise<string> {
  return (await findOwnStatusPage(prisma, ctx, id)).id;
}
