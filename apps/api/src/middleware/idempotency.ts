import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import {
  ConflictError,
  createBatchLoader,
  forKeys,
  hotBatchStatement,
  hotQuery,
  perClient,
  ValidationError,
  sha256Hex,
  sqlExecute,
  type PrismaClient,
  type SqlTransaction,
} from '@statusvane/shared';
import { storeAnswers, type InTransaction, type PendingAnswer } from '../services/context.js';
import { ctxOf } from './auth.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The spec keeps a key (and its first response) for 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An in-flight claim older than this is presumed orphaned (its process died between claim and answer) and may be
 * taken over. It must stay well above the longest a handler can run (statement timeout 10 s per query), or a
 * slow-but-alive first request could be run a second time.
 */
export const IDEMPOTENCY_STALE_MS = 60_000;
const MAX_KEY_LENGTH = 255;
// Matches the column width; the full path still goes into the fingerprint, so truncation cannot merge requests.
const MAX_PATH_LENGTH = 300;
const PURGE_PROBABILITY = 0.01;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export interface IdempotencyDeps {
  prisma: PrismaClient;
  now?: () => Date;
}

/**
 * Safe retries for a route declared `idempotent` (mountRoutes mounts it after auth and JSON body parsing). One
 * protocol: the service stores the answer in the transaction that performs the action (storeAnswerInTransaction);
 * any other answer releases the key.
 *
 * State lives in PostgreSQL (idempotency_records), never in process memory, so a key holds across API replicas.
 * The unique index (workspaceId, principal, key) is the lock: whoever inserts the row owns the key; a row with
 * responseStatus NULL is "in flight", a row with a status is a stored response to replay.
 */
export function idempotency(deps: IdempotencyDeps): RequestHandler {
  const { prisma } = deps;
  const now = deps.now ?? (() => new Date());

  return async (req, res, next) => {
    const key = parseKey(req.get(IDEMPOTENCY_KEY_HEADER));
    if (key === undefined) {
      next();
      return;
    }
    const ctx = ctxOf(res);
    const scope = { workspaceId: ctx.workspace.id, principal: ctx.principal, key };
    const path = `${req.baseUrl}${req.path}`;
    const requestHash = requestFingerprint(req.method, path, req.body);

    const outcome = await acquire(prisma, now, {
      ...scope,
      method: req.method.slice(0, 10),
      path: path.slice(0, MAX_PATH_LENGTH),
      requestHash,
    });

    if (outcome.kind === 'replay') {
      res.setHeader(REPLAYED_HEADER, 'true');
      // The answer's own bytes (stored as a JSON string): the same key order and spelling as the first answer.
      if (typeof outcome.body === 'string') res.status(outcome.status).type('application/json').send(outcome.body);
      else res.status(outcome.status).json(outcome.body);
      return;
    }
    if (outcome.kind === 'busy') {
      res.setHeader('Retry-After', '1');
      throw new ConflictError('A request with this Idempotency-Key is still in progress; retry shortly');
    }

    const held: HeldClaim = { ...outcome.claim, storedInTransaction: false };
    res.locals[HELD_CLAIM] = held;
    releaseOnFinish(prisma, res, held);
    next();
  };
}

/** The claim a request holds: the row id plus the createdAt it wrote, so a taken-over claim cannot be touched. */
interface Claim {
  id: string;
  createdAt: Date;
}

/** A claim while its request runs; `storedInTransaction` once the handler's transaction has stored the answer. */
interface HeldClaim extends Claim {
  storedInTransaction: boolean;
  /** The JSON text stored as the answer. */
  answer?: string;
}

const HELD_CLAIM = 'idempotencyClaim';

/**
 * The `ctx.inTransaction` hook of an idempotent route (services/context.ts): stores the answer, `status` and
 * `toBody(result)`, inside the transaction that performs the action.
 * The action and its stored answer then commit together or not at all: no crash between the two can leave an
 * in-flight claim over a performed action, which a retry would take over once stale and perform again. The store is
 * also a compare-and-set on the claim: if a retry took the claim over meanwhile, it refuses (409) and the action
 * rolls back, so at most one of them commits. Undefined when the request carries no key.
 *
 * mountRoutes then answers exactly `status` and `toBody(result)`.
 */
export function storeAnswerInTransaction(
  res: Response,
  status: number,
  toBody: (result: unknown) => unknown,
): InTransaction | undefined {
  const held = res.locals[HELD_CLAIM] as HeldClaim | undefined;
  if (!held) return undefined;
  const answer = (result: unknown, replay: unknown = result): PendingAnswer => {
    // The bytes the client gets, kept as one JSON string (jsonb would reorder an object's keys): a replay repeats
    // them exactly, and mountRoutes sends these very bytes the first time (storedAnswer). A service that shows a
    // secret once stores its answer without it (`replay`), and only the first answer carries it.
    const text = JSON.stringify(toBody(result));
    return {
      claim: {
        id: held.id,
        createdAt: held.createdAt,
        status,
        body: replay === result ? text : JSON.stringify(toBody(replay)),
      },
      stored: () => {
        held.storedInTransaction = true;
        held.answer = text;
      },
      takenOver: () => claimTakenOver(res),
    };
  };
  const hook = async (tx: SqlTransaction, result: unknown, replay: unknown = result) => {
    const pending = answer(result, replay);
    if ((await sqlExecute(tx, storeAnswers([pending]))) !== 1) throw pending.takenOver();
    pending.stored();
  };
  return Object.assign(hook, { answer }) satisfies InTransaction;
}

/** A retry with the key took the claim over (it was stale): this request's action must roll back. */
function claimTakenOver(res: Response): ConflictError {
  res.setHeader('Retry-After', '1');
  return new ConflictError('A retry with this Idempotency-Key took this request over; retry to get its answer');
}

/** The answer's bytes as the request's transaction stored them, to be sent as they are; undefined when none was. */
export function storedAnswer(res: Response): string | undefined {
  return (res.locals[HELD_CLAIM] as HeldClaim | undefined)?.answer;
}

type Outcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; status: number; body: unknown } | { kind: 'busy' };

interface ClaimInput {
  workspaceId: string;
  principal: string;
  key: string;
  method: string;
  path: string;
  requestHash: string;
}

/**
 * The claims' insert: ON CONFLICT DO NOTHING, so a row back tells atomically that this request now owns the key. A hot
 * statement (docs/adr/0021-hot-statements-on-the-pool.md): every idempotent request claims its key, and the ORM's
 * compiled createMany cost several times the statement, Prisma's raw query about twice what node-postgres costs. The
 * claims of concurrent requests go together (claimsOf): one statement and one commit for all of them, each row still
 * its own claim (two requests of a batch with the same key: one row, one owner, as when they race).
 */
const claimRows = (rows: string) => `
  INSERT INTO idempotency_records (id, "workspaceId", principal, key, method, path, "requestHash", "createdAt",
    "expiresAt")
  ${rows}
  ON CONFLICT DO NOTHING
  RETURNING id::text AS id`;
const CLAIMS = hotBatchStatement(
  claimRows('VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8::timestamptz, $9::timestamptz)'),
  claimRows(`SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::timestamptz[], $9::timestamptz[])`),
);

type ClaimRow = ClaimInput & { id: string; createdAt: Date };

/** Claim statements at once per API process: while both are in flight, the claims arriving go together in the next. */
const CLAIMS_IN_FLIGHT = 2;
const claimsOf = perClient((prisma: PrismaClient) =>
  createBatchLoader<ClaimRow, true>(
    async (claims) => {
      const col = <F extends keyof ClaimRow>(f: F) => claims.map((c) => c[f]);
      const expires = claims.map((c) => new Date(c.createdAt.getTime() + IDEMPOTENCY_TTL_MS));
      const rows = await hotQuery<{ id: string }>(
        prisma,
        ...forKeys(CLAIMS, [
          col('id'),
          col('workspaceId'),
          col('principal'),
          col('key'),
          col('method'),
          col('path'),
          col('requestHash'),
          col('createdAt'),
          expires,
        ]),
      );
      return new Map(rows.map((r) => [r.id, true as const]));
    },
    { keyOf: (c) => c.id, maxInFlight: CLAIMS_IN_FLIGHT, pad: false },
  ),
);

async function acquire(prisma: PrismaClient, now: () => Date, input: ClaimInput): Promise<Outcome> {
  // Two rounds: a row can disappear (or expire) between our failed insert and our read, and the second insert
  // then usually wins. If it loses again another request is actively using the key, so "busy" is the truth.
  for (let round = 0; round < 2; round++) {
    const claimedAt = now();
    const id = randomUUID();
    const claimed = await claimsOf(prisma).load({ ...input, id, createdAt: claimedAt });
    if (claimed) {
      if (Math.random() < PURGE_PROBABILITY) {
        // Fire and forget: cleaning up is a courtesy, never a reason to fail or slow the request.
        purgeExpiredIdempotencyRecords(prisma, claimedAt).catch(() => undefined);
      }
      return { kind: 'claimed', claim: { id, createdAt: claimedAt } };
    }

    const existing = await prisma.idempotencyRecord.findUnique({
      where: {
        workspaceId_principal_key: { workspaceId: input.workspaceId, principal: input.principal, key: input.key },
      },
    });
    if (!existing) continue;

    const current = now();
    if (existing.expiresAt.getTime() <= current.getTime()) {
      // Conditional on id and expiresAt: never delete a row some other request has just re-claimed.
      await prisma.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: existing.expiresAt } });
      continue;
    }
    if (existing.requestHash !== input.requestHash) {
      throw new ValidationError('Idempotency-Key was already used with a different request', [
        { path: IDEMPOTENCY_KEY_HEADER, message: 'was already used with a different request' },
      ]);
    }
    if (existing.responseStatus === null) {
      if (current.getTime() - existing.createdAt.getTime() < IDEMPOTENCY_STALE_MS) return { kind: 'busy' };
      // Takeover is a compare-and-set on the old createdAt: of several retries racing for an orphaned claim,
      // exactly one gets count 1. The fresh createdAt also fences off the original owner should it still be alive.
      const { count: taken } = await prisma.idempotencyRecord.updateMany({
        where: { id: existing.id, createdAt: existing.createdAt, responseStatus: null },
        data: { createdAt: current, expiresAt: new Date(current.getTime() + IDEMPOTENCY_TTL_MS) },
      });
      return taken === 1 ? { kind: 'claimed', claim: { id: existing.id, createdAt: current } } : { kind: 'busy' };
    }
    return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
  }
  return { kind: 'busy' };
}

/**
 * The backstop for an answer that is not a stored success (a 4xx, a 5xx, a client that went away once the handler
 * finished): the claim is released, so only performed actions are remembered. 'finish' only: on 'close' alone (client
 * went away) the handler may still be running and about to perform the action, and releasing then would let a retry
 * perform it twice.
 */
function releaseOnFinish(prisma: PrismaClient, res: Response, claim: HeldClaim): void {
  res.on('finish', () => {
    // A failure after the hook ran rolled the stored answer back with the action: release that claim too (a no-op
    // when the answer did commit, since only an unanswered claim is deleted).
    const success = res.statusCode >= 200 && res.statusCode < 300;
    if (!success || !claim.storedInTransaction) releaseClaim(prisma, claim).catch(() => undefined);
  });
}

/** Deletes the claim unless it holds an answer, and unless a retry took it over (its createdAt changed). */
function releaseClaim(prisma: PrismaClient, claim: HeldClaim) {
  return prisma.idempotencyRecord.deleteMany({
    where: { id: claim.id, createdAt: claim.createdAt, responseStatus: null },
  });
}

/**
 * Releases the request's claim now, before its error is answered, so that a client retrying the moment it reads
 * the error is not told 409. A no-op without a claim, or when the answer committed.
 */
export async function releaseIdempotencyClaim(prisma: PrismaClient, res: Response): Promise<void> {
  const held = res.locals[HELD_CLAIM] as HeldClaim | undefined;
  if (held) await releaseClaim(prisma, held).catch(() => undefined);
}

/**
 * True when the request holds a claim whose answer no transaction stored: a route declared idempotent whose service
 * never called `ctx.inTransaction` (a bug: the action would not be remembered).
 */
export function answerNotStored(res: Response): boolean {
  const held = res.locals[HELD_CLAIM] as HeldClaim | undefined;
  return held !== undefined && !held.storedInTransaction;
}

/** Deletes the records that expired at or before `now`; for a periodic job. Returns how many were removed. */
export async function purgeExpiredIdempotencyRecords(prisma: PrismaClient, now: Date = new Date()): Promise<number> {
  const { count } = await prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}

/** sha256 over method, path and the body as canonical JSON: key order and whitespace do not make a new request. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return sha256Hex(`${method.toUpperCase()}\n${path}\n${canonicalJson(body)}`);
}

function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const fields = Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function parseKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const problem =
    raw.length === 0
      ? 'must not be empty'
      : raw.length > MAX_KEY_LENGTH
        ? `must be at most ${MAX_KEY_LENGTH} characters`
        : CONTROL_CHARS.test(raw)
          ? 'must not contain control characters'
          : null;
  if (problem) {
    throw new ValidationError(`Idempotency-Key ${problem}`, [{ path: IDEMPOTENCY_KEY_HEADER, message: problem }]);
  }
  return raw;
}
