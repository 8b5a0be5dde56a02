import { encodeCursor, endOfLog, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';

/**
 * Where the workspace's event log ends now, as a cursor: `GET /events?after=<it>` (or the console's live status
 * stream) then answers exactly the events that commit later. A page that shows state and follows changes reads it
 * with that state, so that nothing between the two is missed.
 */
export async function getEventLogEnd(
  { prisma }: { prisma: PrismaClient },
  { ctx: _ctx }: { ctx: ServiceContext },
): Promise<string> {
  // The fence is the database's (the oldest transaction still running), the same for every workspace.
  return encodeCursor(await endOfLog(prisma));
}
