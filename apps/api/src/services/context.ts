import {
  ConflictError,
  eventsInsert,
  Prisma,
  writeTogether,
  type NewEvent,
  type SqlTransaction,
} from '@statusvane/shared';
import { auditInserts, type AuditedWrite, type IfMatch } from './audit/record-write.js';
import type { RequestContext, UserContext } from './auth/context.js';

/**
 * A write that must commit or roll back together with a service's own (the Idempotency-Key's stored answer): a
 * service that receives one calls it inside its transaction, after its own writes, with the result it will return.
 * Throwing rolls the whole transaction back. `replay`, when given, is what a retry with the same key is answered
 * instead of `result` (a secret shown once is not stored: POST /tokens). Prisma's transaction or a hotTransaction
 * (POST /monitors).
 */
export interface InTransaction {
  (tx: SqlTransaction, result: unknown, replay?: unknown): Promise<void>;
  /**
   * The same answer as a row of storeAnswers (below), for a write that stores the answers of several requests in one
   * statement (writeLastOfEach); its `stored` is called once the row is written.
   */
  answer(result: unknown, replay?: unknown): PendingAnswer;
}

/** An answer to store on an Idempotency-Key's claim (InTransaction.answer). */
export interface PendingAnswer {
  claim: { id: string; createdAt: Date; status: number; body: string };
  stored(): void;
  /** The error (409) its request is answered when a retry took the claim over, so that its row was not written. */
  takenOver(): Error;
}

/**
 * The stored answers of requests in one statement, each on its own claim, whose text is the same however many it
 * holds: a compare-and-set on each claim (its id and the createdAt it wrote, still unanswered), so a claim a retry took
 * over meanwhile is left alone and writes no row. Raw SQL (as the claims' insert, middleware/idempotency.ts): on every
 * idempotent write, and the ORM's compiled update cost several times it. The body is a JSON string in jsonb (to_jsonb
 * of the text). Here rather than beside the claims: services store answers (writeLastOfEach), and never import the
 * HTTP layer.
 */
export function storeAnswers(answers: readonly PendingAnswer[]): Prisma.Sql {
  return Prisma.sql`
    UPDATE idempotency_records r SET "responseStatus" = a.status, "responseBody" = to_jsonb(a.body)
      FROM jsonb_to_recordset(${JSON.stringify(answers.map((a) => a.claim))}::jsonb)
        AS a(id uuid, "createdAt" timestamptz, status int, body text)
     WHERE r.id = a.id AND r."createdAt" = a."createdAt" AND r."responseStatus" IS NULL`;
}

/**
 * The last writes of the creates of several requests in one transaction (group commit: POST /monitors,
 * docs/adr/0022-group-commit-of-creates.md): their stored answers, events and audit events in one statement whose
 * text is the same however many requests it holds. Should an answer not be stored (a retry took its claim over), it
 * throws: the group then runs each create alone, where that request alone is answered 409.
 */
export async function writeLastOfEach(
  tx: SqlTransaction,
  writes: ReadonlyArray<{ ctx: ServiceContext; result: unknown; event: NewEvent; audit: AuditedWrite }>,
): Promise<void> {
  const answers = writes.flatMap(({ ctx, result }) => (ctx.inTransaction ? [ctx.inTransaction.answer(result)] : []));
  const [stored] = await writeTogether(tx, [
    ...(answers.length ? [storeAnswers(answers)] : []),
    eventsInsert(writes.map((w) => w.event)),
    auditInserts(writes.map(({ ctx, audit }) => ({ ctx, event: audit }))),
  ]);
  if (answers.length && stored !== answers.length) {
    // Which one, only a create alone can tell: the group runs each alone then.
    throw answers.length === 1 ? answers[0]!.takenOver() : new ConflictError('An Idempotency-Key was taken over');
  }
  for (const a of answers) a.stored();
}

/**
 * What every service verb gets as `ctx` (see services/README.md): who calls, in which workspace, with which role; the
 * request's clock reading; for an idempotent create called with an Idempotency-Key, the hook that stores the
 * answer in the service's transaction; and for a PATCH or DELETE, its If-Match. It is a WriteContext
 * (services/audit/record-write.ts): the actor and the clock of the audit events of its writes.
 */
export interface ServiceContext extends RequestContext {
  /** The one "now" of the operation (tests move it to stand on a boundary). */
  now: Date;
  /** Set only for a route declared `idempotent` that was sent an Idempotency-Key; the service must call it. */
  inTransaction?: InTransaction | undefined;
  /**
   * PATCH and DELETE: the condition of the request's `If-Match`, checked by claimVersion (services/audit) in the
   * write itself. Unset: no condition.
   */
  ifMatch?: IfMatch | undefined;
}

/**
 * What a verb of a public status page gets as `ctx` (subscribe, the mail links): no caller identity, only the page the
 * visitor is on, which scopes every query as `workspace` does for ServiceContext, and the request's clock reading.
 */
export interface PageVisitContext {
  page: { id: string; workspaceId: string };
  now: Date;
}

/** What a `/me/...` verb gets as `ctx`: the person calling (in no workspace), and the request's clock reading. */
export interface UserServiceContext extends UserContext {
  now: Date;
}
