import { writeTogether, type Prisma, type SqlTransaction } from '@statusvane/shared';
import type { IfMatch } from './audit/record-write.js';
import type { RequestContext, UserContext } from './auth/context.js';

/**
 * A write that must commit or roll back together with a service's own (the Idempotency-Key's stored answer): a
 * service that receives one calls it inside its transaction, after its own writes, with the result it will return.
 * Throwing rolls the whole transaction back. `replay`, when given, is what a retry with the same key is answered
 * instead of `result` (a secret shown once is not stored: POST /tokens). Prisma's transaction or a hotTransaction
 * (POST /monitors).
 */
export type InTransaction = (
  tx: SqlTransaction,
  result: unknown,
  replay?: unknown,
  /** The service's own last writes, run in the same statement as the answer's (writeTogether): one round trip. */
  alongside?: readonly Prisma.Sql[],
) => Promise<void>;

/**
 * A service's last writes in its transaction (`statements`, which writeTogether runs as one) and, when the request
 * holds an Idempotency-Key, the stored answer `result`: all in one round trip.
 */
export async function writeLast(
  tx: SqlTransaction,
  ctx: Pick<ServiceContext, 'inTransaction'>,
  result: unknown,
  statements: readonly Prisma.Sql[],
): Promise<void> {
  if (ctx.inTransaction) await ctx.inTransaction(tx, result, result, statements);
  else await writeTogether(tx, statements);
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
