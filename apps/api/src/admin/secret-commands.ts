import { z } from 'zod';
import {
  decryptSecret,
  encryptSecret,
  parseOrThrow,
  Prisma,
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
  field: 'headers' | 'body' | 'steps';
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
  /** Event webhooks (`/webhooks`): their URL and signing secret. */
  webhooks: SealedRotateSummary;
  /** Status page subscribers: webhook URL and signing secret, confirm and unsubscribe tokens. */
  subscribers: SealedRotateSummary;
  /** Console users' second-factor (TOTP) secrets. */
  users: SealedRotateSummary;
  /** Workspace secrets (`POST /secrets`): their values. */
  workspaceSecrets: SealedRotateSummary;
  /** Users' contact methods (`PUT /me/contact-methods`): their targets, sealed as escalation targets are. */
  contactMethods: SealedRotateSummary;
  /** After the run: how many stored values (of every kind above) each key id seals. An old key absent here can be
   * retired. */
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

/** One kind of row holding sealed values: how many, what this run did, and what it could not. */
export interface SealedRotateSummary {
  /** Rows holding at least one sealed value. */
  total: number;
  reencrypted: number;
  upToDate: number;
  /** Values no configured key opens (`column`: the stored column); the row is left as it is. */
  unreadable: Array<{ id: string; column: string; keyId: string | null; reason: string }>;
  /** Rows rewritten by someone else on every attempt: left for the next run. */
  retryLater: string[];
}

/**
 * A table whose columns hold values sealed by encryptSecret (`v1:<keyId>:...`). Every such column must be listed in
 * SEALED (test/monitor-secrets.test.ts checks the schema against it), so `secrets rotate` leaves no value behind.
 */
interface SealedTable {
  table: string;
  columns: readonly string[];
  /**
   * A column beside the values naming the key of legacy values (bare base64, written before values named their key):
   * `clear` (monitors) empties it once every value names its own key; `current` (escalation targets and contact
   * methods, whose rows must keep one) sets the current key's id.
   */
  keyColumn?: { name: string; onWrite: 'clear' | 'current' };
}

export const SEALED = {
  monitors: {
    table: 'monitors',
    // stepSecretsEnc: an api monitor's step headers and bodies (always self-describing, never legacy).
    columns: ['headersEnc', 'bodyEnc', 'stepSecretsEnc'],
    keyColumn: { name: 'encKeyId', onWrite: 'clear' },
  },
  escalationTargets: {
    table: 'escalation_targets',
    columns: ['targetEnc'],
    keyColumn: { name: 'encKeyId', onWrite: 'current' },
  },
  webhooks: { table: 'webhooks', columns: ['urlEnc', 'secretEnc'] },
  subscribers: {
    table: 'status_page_subscribers',
    columns: ['webhookUrlEnc', 'secretEnc', 'confirmTokenEnc', 'unsubscribeTokenEnc'],
  },
  /** Console users' TOTP secrets (second factor), enrolled and pending. */
  users: { table: 'users', columns: ['totpSecretEnc', 'totpPendingSecretEnc'] },
  /** Workspace secrets' values (api steps and http monitors use them as `{{secrets.NAME}}`). */
  workspaceSecrets: { table: 'workspace_secrets', columns: ['valueEnc'] },
  /** Users' contact methods: sealed and opened as escalation targets are (sealTarget/openTarget, key id beside). */
  contactMethods: {
    table: 'contact_methods',
    columns: ['targetEnc'],
    keyColumn: { name: 'encKeyId', onWrite: 'current' },
  },
} as const satisfies Record<string, SealedTable>;

// A row rewritten by the API between our read and our write is read again; more than this many times in a row means
// it is being written continuously, and it is reported rather than fought over.
const MAX_ATTEMPTS = 5;

/** A value sealed in the current self-describing format under `keyId` (a legacy value never is). */
const sealedUnder = (value: string, keyId: string) => value.startsWith('v1:') && secretKeyId(value) === keyId;

const ident = (name: string) => Prisma.raw(`"${name}"`);
type SealedRow = { id: string } & Record<string, string | null>;

/**
 * secrets rotate: re-encrypts every sealed value (monitor headers and bodies, api steps' headers and bodies, workspace
 * secrets, escalation targets, users' contact methods, event webhook URLs and secrets, status page subscribers' webhook URLs, secrets and link
 * tokens) under the current key
 * (ENCRYPTION_KEY), in the current self-describing format, so the keys in ENCRYPTION_OLD_KEYS can then be retired.
 * Safe while the API and workers run: each row is written with a compare-and-set on the values it read, so a write
 * that lands meanwhile is never overwritten with the older secret (the row is read again instead). Safe to repeat: a
 * second run finds everything up to date. Only the sealed columns change (not `updatedAt`, not `version`: the values
 * are the same).
 */
export async function rotateSecrets(
  prisma: PrismaClient,
  raw: unknown,
  opts: SecretCommandOptions,
): Promise<RotateSummary> {
  parseOrThrow(z.object({}).strict(), raw, 'arguments');
  const keysInUse: Record<string, number> = {};
  const count = (keyId: string | null) => {
    const k = keyId ?? '(unknown)';
    keysInUse[k] = (keysInUse[k] ?? 0) + 1;
  };
  const rotate = (spec: SealedTable) => rotateTable(prisma, opts, spec, count);
  const monitors = await rotate(SEALED.monitors);
  const targets = await rotate(SEALED.escalationTargets);
  const webhooks = await rotate(SEALED.webhooks);
  const subscribers = await rotate(SEALED.subscribers);
  const users = await rotate(SEALED.users);
  const workspaceSecrets = await rotate(SEALED.workspaceSecrets);
  const contactMethods = await rotate(SEALED.contactMethods);
  return {
    currentKeyId: opts.keyring.current.id,
    monitors: monitors.total,
    reencrypted: monitors.reencrypted,
    upToDate: monitors.upToDate,
    unreadable: monitors.unreadable.map((u) => ({
      monitorId: u.id,
      field: u.column === 'headersEnc' ? 'headers' : u.column === 'bodyEnc' ? 'body' : 'steps',
      keyId: u.keyId,
      reason: u.reason,
    })),
    retryLater: monitors.retryLater,
    escalationTargets: {
      ...targets,
      unreadable: targets.unreadable.map((u) => ({ targetId: u.id, keyId: u.keyId, reason: u.reason })),
    },
    webhooks,
    subscribers,
    users,
    workspaceSecrets,
    contactMethods,
    keysInUse,
  };
}

/** Every row of `spec.table` holding a sealed value, a page at a time in id order, each brought under the current key. */
async function rotateTable(
  prisma: PrismaClient,
  { keyring, batchSize }: SecretCommandOptions,
  spec: SealedTable,
  count: (keyId: string | null) => void,
): Promise<SealedRotateSummary> {
  const out: SealedRotateSummary = { total: 0, reencrypted: 0, upToDate: 0, unreadable: [], retryLater: [] };
  const current = keyring.current;
  const keyCol = spec.keyColumn?.name;
  const read = [...spec.columns, ...(keyCol ? [keyCol] : [])];
  const anySealed = Prisma.join(
    spec.columns.map((c) => Prisma.sql`${ident(c)} IS NOT NULL`),
    ' OR ',
  );
  const fetch = (where: Prisma.Sql, limit: number) =>
    prisma.$queryRaw<SealedRow[]>`
      SELECT id::text AS id, ${Prisma.join(read.map(ident))} FROM ${ident(spec.table)}
       WHERE (${anySealed}) AND ${where} ORDER BY id LIMIT ${limit}::int`;
  const legacyKeyOf = (row: SealedRow) => (keyCol ? row[keyCol] : null) ?? null;
  const keyAfterWrite = spec.keyColumn?.onWrite === 'current' ? current.id : null;
  const sealed = (row: SealedRow) => spec.columns.filter((c) => row[c] !== null);

  /** One row: up to date, rewritten, or unreadable; read again when a concurrent write beat ours. */
  async function rotateRow(first: SealedRow): Promise<void> {
    let row = first;
    for (let attempt = 1; ; attempt++) {
      const columns = sealed(row);
      const legacyKey = legacyKeyOf(row);
      if (columns.every((c) => sealedUnder(row[c]!, current.id)) && (!keyCol || legacyKey === keyAfterWrite)) {
        out.upToDate++;
        for (const _ of columns) count(current.id);
        return;
      }
      const next: Record<string, string> = {};
      const unreadable: SealedRotateSummary['unreadable'] = [];
      for (const c of columns) {
        const value = row[c]!;
        if (sealedUnder(value, current.id)) continue;
        try {
          next[c] = encryptSecret(decryptSecret(value, legacyKey, keyring), current).ciphertext;
        } catch (err) {
          unreadable.push({
            id: row.id,
            column: c,
            keyId: secretKeyId(value, legacyKey),
            reason: (err as Error).message,
          });
        }
      }
      if (unreadable.length) {
        out.unreadable.push(...unreadable);
        for (const c of columns) count(secretKeyId(row[c]!, legacyKey));
        return;
      }
      const sets = [
        ...Object.entries(next).map(([c, v]) => Prisma.sql`${ident(c)} = ${v}`),
        ...(keyCol ? [Prisma.sql`${ident(keyCol)} = ${keyAfterWrite}`] : []),
      ];
      const unchanged = read.map((c) => Prisma.sql`${ident(c)} IS NOT DISTINCT FROM ${row[c]}`);
      const written = await prisma.$executeRaw`
        UPDATE ${ident(spec.table)} SET ${Prisma.join(sets)}
         WHERE id = ${row.id}::uuid AND ${Prisma.join(unchanged, ' AND ')}`;
      if (written === 1) {
        out.reencrypted++;
        for (const _ of columns) count(current.id);
        return;
      }
      if (attempt >= MAX_ATTEMPTS) {
        out.retryLater.push(row.id);
        return;
      }
      const [fresh] = await fetch(Prisma.sql`id = ${row.id}::uuid`, 1);
      // Deleted, or its secrets removed, meanwhile: nothing left to rotate.
      if (!fresh) {
        out.upToDate++;
        return;
      }
      row = fresh;
    }
  }

  // Keyset pagination in id order: rows rewritten meanwhile stay put.
  for (let after: string | null = null; ;) {
    const rows = await fetch(after ? Prisma.sql`id > ${after}::uuid` : Prisma.sql`TRUE`, batchSize ?? 500);
    if (rows.length === 0) break;
    out.total += rows.length;
    for (const row of rows) await rotateRow(row);
    after = rows.at(-1)!.id;
  }
  return out;
}
