import {
  assertCursorWithinLog,
  commaListQueryParam,
  cursorQueryParam,
  encodeCursor,
  EVENT_TYPES,
  integerQueryParam,
  readEvents,
  toCloudEvent,
  type PrismaClient,
} from '@statusvane/shared';
import { z } from 'zod';
import type { ServiceContext } from '../context.js';
import type { EventRecord } from './event-record.js';

export const listEventsQuerySchema = z
  .object({
    after: cursorQueryParam.optional(),
    types: commaListQueryParam(EVENT_TYPES).optional(),
    limit: integerQueryParam(1, 500, 100),
  })
  .strict();
export type ListEventsQuery = z.output<typeof listEventsQuerySchema>;

/**
 * GET /events: the workspace's event log after `after` (or from the oldest kept), oldest first. An `after` beyond the
 * end of the log (no answer gave it) is 400.
 */
export async function listEvents(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: ListEventsQuery },
): Promise<{ data: EventRecord[]; nextCursor: string }> {
  const after = input.after ?? null;
  const { events, caughtUp } = await readEvents(deps.prisma, {
    workspaceId: ctx.workspace.id,
    after,
    types: input.types ?? null,
    limit: input.limit,
  });
  // A cursor beyond the end would answer nothing, and then itself, until the log caught up with it: refused.
  assertCursorWithinLog(after, caughtUp);
  // The last event's cursor; nothing newer: `after` again (the spec's rule), or, with no `after`, the end of the log
  // as it stands (everything before it has been seen).
  const next = events.at(-1) ?? after ?? caughtUp;
  return { data: events.map((e) => toCloudEvent(e) as EventRecord), nextCursor: encodeCursor(next) };
}
