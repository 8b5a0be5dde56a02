import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { ConflictError, ValidationError, sha256Hex, type Prisma, type PrismaClient } from '@statusvane/shared';
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
 * Safe retries for a POST route: mount after auth and JSON body parsing, before the handler.
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
      res.status(outcome.status).json(outcome.body);
      return;
    }
    if (outcome.kind === 'busy') {
      res.setHeader('Retry-After', '1');
      throw new ConflictError('A request with this Idempotency-Key is still in progress; retry shortly');
    }

    const held: HeldClaim = { ...outcome.claim, storedInTransaction: false };
    res.locals[HELD_CLAIM] = held;
    recordResponse(prisma, res, held);
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
}

const HELD_CLAIM = 'idempotencyClaim';

/**
 * For a handler whose action commits in one transaction (POST /monitors, POST /status-pages): a hook for the service
 * (see services/in-transaction.ts) that stores the answer, `status` and `toBody(result)`, inside that transaction.
 * The action and its stored answer then commit together or not at all: no crash between the two can leave an
 * in-flight claim over a performed action, which a retry would take over once stale and perform again. The store is
 * also a compare-and-set on the claim: if a retry took the claim over meanwhile, it refuses (409) and the action
 * rolls back, so at most one of them commits. Undefined when the request carries no key.
 *
 * The handler must then answer exactly `status` and `toBody(result)`; the middleware does not store it a second time.
 * Handlers that do not use this keep the older behaviour: the answer is stored just after the action.
 */
export function storeAnswerInTransaction<T>(
  res: Response,
  status: number,
  toBody: (result: T) => unknown,
): ((tx: Prisma.TransactionClient, result: T) => Promise<void>) | undefined {
  const held = res.locals[HELD_CLAIM] as HeldClaim | undefined;
  if (!held) return undefined;
  return async (tx, result) => {
    const stored = JSON.parse(JSON.stringify(toBody(result))) as Prisma.InputJsonValue;
    const { count } = await tx.idempotencyRecord.updateMany({
      where: { id: held.id, createdAt: held.createdAt, responseStatus: null },
      data: { responseStatus: status, responseBody: stored },
    });
    if (count !== 1) {
      res.setHeader('Retry-After', '1');
      throw new ConflictError('A retry with this Idempotency-Key took this request over; retry to get its answer');
    }
    held.storedInTransaction = true;
  };
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

async function acquire(prisma: PrismaClient, now: () => Date, input: ClaimInput): Promise<Outcome> {
  // Two rounds: a row can disappear (or expire) between our failed insert and our read, and the second insert
  // then usually wins. If it loses again another request is actively using the key, so "busy" is the truth.
  for (let round = 0; round < 2; round++) {
    const claimedAt = now();
    const id = randomUUID();
    // ON CONFLICT DO NOTHING: count tells atomically whether this request now owns the key.
    const { count } = await prisma.idempotencyRecord.createMany({
      data: [{ id, ...input, createdAt: claimedAt, expiresAt: new Date(claimedAt.getTime() + IDEMPOTENCY_TTL_MS) }],
      skipDuplicates: true,
    });
    if (count === 1) {
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
 * Settles the claim when the handler answers (unless the handler's transaction stored it: storeAnswerInTransaction).
 * A 2xx JSON answer is stored before it is sent, so a client that retries the moment it has the answer is replayed,
 * never told 409. Anything else (validation failure, 403, 409, 5xx, a non-JSON answer) releases the key: only
 * performed actions are remembered.
 */
function recordResponse(prisma: PrismaClient, res: Response, claim: HeldClaim): void {
  const mine = { id: claim.id, createdAt: claim.createdAt, responseStatus: null };
  const release = () => prisma.idempotencyRecord.deleteMany({ where: mine });
  let settled = false;

  const send = res.json.bind(res);
  res.json = function recordingJson(body?: unknown) {
    // The stored answer and the sent answer must agree: once one JSON answer is being recorded, a second one
    // (a handler that answers and then throws into the error middleware) is dropped.
    if (settled) return res;
    // Serialised before settling: a body that cannot be serialised throws here, into the error middleware,
    // whose own answer must still be able to settle the claim.
    const text = JSON.stringify(body);
    settled = true;
    const status = res.statusCode;
    // Stored as the client will read it (Dates as strings, undefined fields dropped); a JSON null cannot be told
    // apart from "no response" in a nullable Json column, so such an answer is not stored.
    const stored = text === undefined ? null : (JSON.parse(text) as unknown);
    const success = status >= 200 && status < 300;
    // Stored in the handler's transaction already: it committed, or the handler would not be answering 2xx. For any
    // other answer the release below is a no-op if it did commit (it only deletes an unanswered claim).
    const settle: Promise<unknown> =
      success && claim.storedInTransaction
        ? Promise.resolve()
        : success && stored !== null
          ? prisma.idempotencyRecord.updateMany({
              where: mine,
              data: { responseStatus: status, responseBody: stored as Prisma.InputJsonValue },
            })
          : release();
    // If the bookkeeping fails the answer still goes out: the client must learn the outcome. The unsettled claim
    // answers 409 until it turns stale (IDEMPOTENCY_STALE_MS) and is taken over, so the key is not lost for 24 hours;
    // for a 2xx whose store failed that means a late retry performs the action again, the price of never
    // withholding an answer that succeeded.
    void settle
      .catch(() => undefined)
      // The status captured above, not whatever the dropped second answer may have set meanwhile.
      .then(() => {
        res.status(status);
        send(body);
      })
      .catch(() => {
        if (!res.writableEnded) res.end();
      });
    return res;
  };

  // Backstop for answers that bypass res.json (res.end, sendStatus, Express's default handler). 'finish' only:
  // on 'close' alone (client went away) the handler may still be running and about to perform the action, and
  // releasing then would let a retry perform it twice.
  res.on('finish', () => {
    if (settled) return;
    settled = true;
    release().catch(() => undefined);
  });
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
