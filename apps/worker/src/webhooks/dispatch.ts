import { readEvents, type EventPosition, type Logger, type PrismaClient, type WebhookQueue } from '@statusvane/shared';

/** Events read per webhook and transaction, and transactions per webhook and dispatch run. */
const BATCH = 500;
const MAX_ROUNDS = 20;
/** A pending delivery this late past its time has lost its job (a worker killed): it is enqueued again. */
export const OVERDUE_MS = 60_000;
const OVERDUE_MAX = 2000;

const later = (a: EventPosition, b: EventPosition) => (b.txid > a.txid || (b.txid === a.txid && b.seq > a.seq) ? b : a);

/** What a dispatch run did; `held`: a webhook has new events above the log's fence, to dispatch once it moves. */
export interface DispatchOutcome {
  created: number;
  requeued: number;
  held: boolean;
}

/**
 * Fans the event log out to webhooks: for each webhook with new events, in a transaction that holds its row (FOR UPDATE SKIP
 * LOCKED, so two dispatchers never read the same webhook at once), the events after its cursor (of its types, below
 * the log's fence: readEvents), one delivery row each (unique per webhook, event and generation, so a rerun adds
 * nothing), and the cursor moved past them, all committed together; the jobs are enqueued after the commit. A job
 * lost between the commit and the enqueue, or with a worker that died, is enqueued again once OVERDUE_MS late (when
 * `overdue`: the sweep's run; a run on notification leaves that to it).
 */
export async function dispatchWebhooks(
  deps: { prisma: PrismaClient; queue: WebhookQueue; logger: Logger },
  { overdue = true, now = new Date() }: { overdue?: boolean; now?: Date } = {},
): Promise<DispatchOutcome> {
  const { prisma } = deps;
  // Only the webhooks with an event after their cursor (any type: a webhook's cursor also moves past the types it
  // does not take): one statement for all of them, through the index on (workspaceId, txid, seq). `ready`: some are
  // below the log's fence, to fan out now; `held`: some are above it (committed, but after a transaction still
  // open), for a later run. A webhook with nothing new costs no transaction and no UPDATE of its row each run.
  const hooks = await prisma.$queryRaw<Array<{ id: string; ready: boolean; held: boolean }>>`
    WITH f AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS fence)
    SELECT id, ready, held FROM (
      SELECT w.id,
        EXISTS (SELECT 1 FROM events e WHERE e."workspaceId" = w."workspaceId"
          AND (e.txid, e.seq) > (w."cursorTxid", w."cursorSeq") AND e.txid < f.fence) AS ready,
        EXISTS (SELECT 1 FROM events e WHERE e."workspaceId" = w."workspaceId"
          AND (e.txid, e.seq) > (w."cursorTxid", w."cursorSeq") AND e.txid >= f.fence) AS held
      FROM webhooks w, f) h
    WHERE ready OR held
    ORDER BY id`;
  let created = 0;
  for (const { id } of hooks.filter((hook) => hook.ready)) {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const { ids, full } = await prisma.$transaction(async (tx) => {
        const [w] = await tx.$queryRaw<
          Array<{
            workspaceId: string;
            types: string[] | null;
            cursorTxid: bigint;
            cursorSeq: bigint;
            generation: number;
          }>
        >`SELECT "workspaceId", types, "cursorTxid", "cursorSeq", generation FROM webhooks
          WHERE id = ${id}::uuid FOR UPDATE SKIP LOCKED`;
        if (!w) return { ids: [], full: false };
        const cursor = { txid: w.cursorTxid, seq: w.cursorSeq };
        const { events, caughtUp } = await readEvents(tx, {
          workspaceId: w.workspaceId,
          after: cursor,
          types: (w.types ?? []) as never,
          limit: BATCH,
        });
        const full = events.length === BATCH;
        let next = events.length ? later(cursor, events.at(-1)!) : cursor;
        // Read to the end: everything below the fence has been seen (events of other types included).
        if (!full) next = later(next, caughtUp);
        const inserted = events.length
          ? await tx.$queryRaw<Array<{ id: string }>>`
              INSERT INTO webhook_deliveries (id, "webhookId", "eventSeq", "eventId", "eventType", generation)
              SELECT gen_random_uuid(), ${id}::uuid, e.seq, e.id, e.type, ${w.generation}::int
              FROM unnest(${events.map((e) => e.seq)}::bigint[], ${events.map((e) => e.id)}::uuid[],
                ${events.map((e) => e.type)}::text[]) AS e(seq, id, type)
              ON CONFLICT ("webhookId", "eventSeq", generation) DO NOTHING
              RETURNING id`
          : [];
        if (next !== cursor)
          await tx.$executeRaw`UPDATE webhooks SET "cursorTxid" = ${next.txid}, "cursorSeq" = ${next.seq}
            WHERE id = ${id}::uuid`;
        return { ids: inserted.map((r) => r.id), full };
      });
      created += ids.length;
      await deps.queue.enqueue(ids);
      if (!full) break;
    }
  }
  const late = overdue
    ? await prisma.webhookDelivery.findMany({
        where: { status: 'pending', nextAttemptAt: { lt: new Date(now.getTime() - OVERDUE_MS) } },
        orderBy: { nextAttemptAt: 'asc' },
        take: OVERDUE_MAX,
        select: { id: true },
      })
    : [];
  await deps.queue.enqueue(late.map((d) => d.id));
  if (created || late.length) deps.logger.debug('webhook deliveries dispatched', { created, requeued: late.length });
  return { created, requeued: late.length, held: hooks.some((hook) => hook.held) };
}
