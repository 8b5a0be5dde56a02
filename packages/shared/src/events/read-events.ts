import type { PrismaClient } from '../db/prisma.js';
import { ValidationError } from '../errors/app-error.js';
import type { Prisma } from '../generated/prisma/client.js';
import { encodeCursor, type EventPosition } from './cursor.js';
import { EVENT_TYPE_PREFIX, type EventType } from './types.js';

type Db = PrismaClient | Prisma.TransactionClient;

export interface EventRow {
  seq: bigint;
  txid: bigint;
  id: string;
  type: EventType;
  subject: string;
  time: Date;
  data: unknown;
  workspaceId: string;
}

/** A CloudEvents 1.0 event (structured JSON), as GET /events answers and webhooks deliver it. */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  /** Extension attribute (CloudEvents "sequence" extension): the event's cursor, ordered as a string. */
  sequence: string;
  data: unknown;
}

export function toCloudEvent(row: EventRow): CloudEvent {
  return {
    specversion: '1.0',
    id: row.id,
    type: `${EVENT_TYPE_PREFIX}${row.type}`,
    source: `/workspaces/${row.workspaceId}`,
    subject: row.subject,
    time: row.time.toISOString(),
    datacontenttype: 'application/json',
    sequence: encodeCursor(row),
    data: row.data,
  };
}

/**
 * Events of one workspace after `after` (exclusive; null: from the oldest kept), oldest first, at most `limit`.
 *
 * Order and the late committer: positions are (txid, seq). A transaction that began writing earlier can commit
 * later, so "the highest position read so far" is no safe cursor by itself. Only events of transactions older than
 * the oldest one still running (the snapshot's xmin) are returned: every such transaction has ended, so no event
 * can later appear at or below a position returned, and a cursor never skips one. The price is latency while a
 * long transaction runs, never a lost event. `caughtUp` is that fence as a position: when fewer than `limit`
 * events came back, everything below it has been seen, so a consumer can move its cursor there.
 */
export async function readEvents(
  db: Db,
  q: { workspaceId: string; after: EventPosition | null; types?: readonly EventType[] | null; limit: number },
): Promise<{ events: EventRow[]; caughtUp: EventPosition }> {
  const after = q.after ?? { txid: -1n, seq: 0n };
  const types = q.types && q.types.length ? [...q.types] : null;
  const rows = await db.$queryRaw<Array<EventRow & { fence: bigint }>>`
    WITH f AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS fence)
    SELECT e.seq, e.txid, e.id, e.type, e.subject, e.time, e.data, e."workspaceId", f.fence
    FROM f LEFT JOIN LATERAL (
      SELECT seq, txid, event_id(events) AS id, type, subject, time, event_data(events) AS data, "workspaceId"
      FROM events
      WHERE "workspaceId" = ${q.workspaceId}::uuid AND (txid, seq) > (${after.txid}::bigint, ${after.seq}::bigint)
        AND txid < f.fence AND (${types}::text[] IS NULL OR type = ANY(${types}::text[]))
      ORDER BY txid, seq LIMIT ${q.limit}::int
    ) e ON true
    ORDER BY e.txid, e.seq`;
  const fence = rows[0]!.fence;
  const events = rows.filter((r) => r.seq !== null).map(({ fence: _, ...e }) => e);
  return { events, caughtUp: { txid: fence, seq: 0n } };
}

/** The current end of the log: readEvents' `caughtUp`, the fence. No cursor handed out is ever beyond it. */
export async function endOfLog(db: Db): Promise<EventPosition> {
  const [{ fence }] = await db.$queryRaw<[{ fence: bigint }]>`
    SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS fence`;
  return { txid: fence, seq: 0n };
}

/**
 * 400 naming `field` for a cursor beyond the end of the log (`end`, from endOfLog or readEvents): no answer ever
 * gave it, and a reader (or a webhook replayed) from there would wait in silence, missing every event, until the
 * log caught up with it.
 */
export function assertCursorWithinLog(after: EventPosition | null, end: EventPosition, field = 'after'): void {
  if (after && (after.txid > end.txid || (after.txid === end.txid && after.seq > end.seq))) {
    throw new ValidationError(`Invalid ${field}: beyond the end of the event log`, [
      { path: field, message: 'Beyond the end of the event log: use a nextCursor or an event sequence' },
    ]);
  }
}
