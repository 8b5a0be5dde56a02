import { z } from 'zod';
import {
  decryptSecret,
  encryptSecret,
  openTarget,
  parseOrThrow,
  secretKeyId,
  type Keyring,
  type PrismaClient,
} from '@statusvane/shared';

export interface SecretCommandOptions {
  /** ENCRYPTION_KEY (current) and ENCRYPTION_OLD_KEYS, as the API and worker see them. */
  keyring: Keyring;
  /** Rows read per query. */
  batchSize?: number;
}

export interface UnreadableSecret {
  monitorId: string;
  field: 'headers' | 'body';
  /** The key the value names (null: a legacy value with no key id beside it). */
  keyId: string | null;
  reason: string;
}

export interface RotateSummary {
  currentKeyId: string;
  /** Monitors that hold a header or body secret. */
  monitors: number;
  /** Of those, rewritten under the current key by this run. */
  reencrypted: number;
  /** Of those, already sealed under the current key in the current format. */
  upToDate: number;
  /** Values no configured key opens: their rows are left as they are. */
  unreadable: UnreadableSecret[];
  /** Monitors the API rewrote on every attempt (a PATCH storm): left for the next run. */
  retryLater: string[];
  /** Escalation targets (webhook and Slack URLs, email addresses), sealed with the same keys. */
  escalationTargets: TargetRotateSummary;
  /** After the run: how many stored values (monitor secrets and escalation targets) each key id seals. An old key
   * absent here can be retired. */
  keysInUse: Record<string, number>;
}

export interface TargetRotateSummary {
  /** Targets stored encrypted. (Plaintext rows from before encryption at rest are the sweeper's: it seals them.) */
  total: number;
  reencrypted: number;
  upToDate: number;
  unreadable: Array<{ targetId: string; keyId: string | null; reason: string }>;
  /** Targets rewritten on every attempt: left for the next run. */
  retryLater: string[];
}

type SecretRow = { id: string; headersEnc: string | null; bodyEnc: string | null; encKeyId: string | null };
const select = { id: true, headersEnc: true, bodyEnc: true, encKeyId: true } as const;
const FIELDS = [
  ['headersEnc', 'headers'],
  ['bodyEnc', 'body'],
] as const;
// A row rewritten by the API between our read and our write is read again; more than this many times in a row means
// it is being written continuously, and it is reported rather than fought over.
const MAX_ATTEMPTS = 5;

/** A value sealed in the current self-describing format under `keyId` (a legacy value never is). */
const sealedUnder = (value: string, keyId: string) => value.startsWith('v1:') && secretKeyId(value) === keyId;

/** Every row `fetch` finds, a page at a time in id order (keyset pagination: rows rewritten meanwhile stay put). */
async function* inPages<T extends { id: string }>(
  fetch: (after: string | undefined) => Promise<T[]>,
): AsyncGenerator<T[]> {
  let cursor: string | undefined;
  for (;;) {
    const rows = await fetch(cursor);
    if (rows.length === 0) return;
    cursor = rows.at(-1)!.id;
    yield rows;
  }
}

/**
 * secrets rotate: re-encrypts every monitor's headers and body, and every escalation target, under the current key (ENCRYPTION_KEY), in the
 * current self-describing format, so the keys in ENCRYPTION_OLD_KEYS can then be retired. Safe while the API and
 * workers run: each row is written with a compare-and-set on the values it read, so a PATCH that lands meanwhile
 * is never overwritten with the older secret (the row is read again instead). Safe to repeat: a second run finds
 * everything up to date.
 */
export async function rotateSecrets(
  prisma: PrismaClient,
  raw: unknown,
  opts: SecretCommandOptions,
): Promise<RotateSummary> {
  parseOrThrow(z.object({}).strict(), raw, 'arguments');
  const { keyring } = opts;
  const current = keyring.current;
  const summary: RotateSummary = {
    currentKeyId: current.id,
    monitors: 0,
    reencrypted: 0,
    upToDate: 0,
    unreadable: [],
    retryLater: [],
    escalationTargets: { total: 0, reencrypted: 0, upToDate: 0, unreadable: [], retryLater: [] },
    keysInUse: {},
  };
  const count = (keyId: string | null) => {
    const k = keyId ?? '(unknown)';
    summary.keysInUse[k] = (summary.keysInUse[k] ?? 0) + 1;
  };
  const isCurrent = (value: string | null) => value === null || sealedUnder(value, current.id);

  /** One row: up to date, rewritten, or unreadable; re-read when a concurrent write beat ours. */
  async function rotateRow(first: SecretRow): Promise<void> {
    let row: SecretRow = first;
    for (let attempt = 1; ; attempt++) {
      if (row.encKeyId === null && isCurrent(row.headersEnc) && isCurrent(row.bodyEnc)) {
        summary.upToDate++;
        for (const [col] of FIELDS) if (row[col] !== null) count(current.id);
        return;
      }
      const next: Record<'headersEnc' | 'bodyEnc', string | null> = {
        headersEnc: row.headersEnc,
        bodyEnc: row.bodyEnc,
      };
      const unreadable: UnreadableSecret[] = [];
      for (const [col, field] of FIELDS) {
        const value = row[col];
        if (value === null || isCurrent(value)) continue;
        try {
          next[col] = encryptSecret(decryptSecret(value, row.encKeyId, keyring), current).ciphertext;
        } catch (err) {
          unreadable.push({
            monitorId: row.id,
            field,
            keyId: secretKeyId(value, row.encKeyId),
            reason: (err as Error).message,
          });
        }
      }
      if (unreadable.length) {
        summary.unreadable.push(...unreadable);
        for (const [col] of FIELDS) if (row[col] !== null) count(secretKeyId(row[col]!, row.encKeyId));
        return;
      }
      const { count: written } = await prisma.monitor.updateMany({
        where: { id: row.id, headersEnc: row.headersEnc, bodyEnc: row.bodyEnc, encKeyId: row.encKeyId },
        data: { ...next, encKeyId: null },
      });
      if (written === 1) {
        summary.reencrypted++;
        for (const [col] of FIELDS) if (next[col] !== null) count(current.id);
        return;
      }
      if (attempt >= MAX_ATTEMPTS) {
        summary.retryLater.push(row.id);
        return;
      }
      const fresh = await prisma.monitor.findUnique({ where: { id: row.id }, select });
      // Deleted, or its secrets removed, meanwhile: nothing left to rotate.
      if (!fresh || (fresh.headersEnc === null && fresh.bodyEnc === null)) {
        summary.upToDate++;
        return;
      }
      row = fresh;
    }
  }

  const take = opts.batchSize ?? 500;
  const monitorPages = inPages((after) =>
    prisma.monitor.findMany({
      where: {
        OR: [{ headersEnc: { not: null } }, { bodyEnc: { not: null } }],
        ...(after ? { id: { gt: after } } : {}),
      },
      orderBy: { id: 'asc' },
      take,
      select,
    }),
  );
  for await (const rows of monitorPages) {
    summary.monitors += rows.length;
    for (const row of rows) await rotateRow(row);
  }
  await rotateTargets(prisma, keyring, summary, count, take);
  return summary;
}

/**
 * The escalation targets' half of `secrets rotate`: each ciphertext names its key, so a target is up to date when
 * it names the current one; otherwise it is opened and sealed again, with the same compare-and-set as monitors (a
 * policy edited meanwhile is never overwritten).
 */
async function rotateTargets(
  prisma: PrismaClient,
  keyring: Keyring,
  summary: RotateSummary,
  count: (keyId: string | null) => void,
  take: number,
): Promise<void> {
  const out = summary.escalationTargets;
  const select = { id: true, targetEnc: true, encKeyId: true, legacyTarget: true } as const;
  const targetPages = inPages((after) =>
    prisma.escalationTarget.findMany({
      where: { targetEnc: { not: null }, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: 'asc' },
      take,
      select,
    }),
  );
  for await (const rows of targetPages) {
    out.total += rows.length;
    for (let row of rows) {
      for (let attempt = 1; ; attempt++) {
        const keyId = secretKeyId(row.targetEnc!, row.encKeyId);
        if (sealedUnder(row.targetEnc!, keyring.current.id)) {
          out.upToDate++;
          count(keyId);
          break;
        }
        let sealed: { ciphertext: string; keyId: string };
        try {
          sealed = encryptSecret(openTarget(row, keyring), keyring.current);
        } catch (err) {
          out.unreadable.push({ targetId: row.id, keyId, reason: (err as Error).message });
          count(keyId);
          break;
        }
        const { count: written } = await prisma.escalationTarget.updateMany({
          where: { id: row.id, targetEnc: row.targetEnc },
          data: { targetEnc: sealed.ciphertext, encKeyId: sealed.keyId },
        });
        if (written === 1) {
          out.reencrypted++;
          count(sealed.keyId);
          break;
        }
        if (attempt >= MAX_ATTEMPTS) {
          out.retryLater.push(row.id);
          break;
        }
        const fresh = await prisma.escalationTarget.findUnique({ where: { id: row.id }, select });
        // Deleted (its policy removed) meanwhile: nothing left to rotate.
        if (!fresh || fresh.targetEnc === null) break;
        row = fresh;
      }
    }
  }
}
