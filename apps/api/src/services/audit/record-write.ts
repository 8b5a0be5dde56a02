import { hostname, userInfo } from 'node:os';
import { NotFoundError, PreconditionFailedError, Prisma, REDACTED, redactedJson, uuidSchema } from '@statusvane/shared';
import type { AuditActor } from '../auth/context.js';

/**
 * Concurrency and audit for every write (docs/decisions.md, "Versions and audit events"), one protocol for every
 * service, the admin CLI and config/apply. Inside the write's own transaction:
 *
 *   await claimVersion(tx, ctx, 'status_page', id);  // first: the row locked on If-Match's condition (404 / 412)
 *   ... the service's own writes ...
 *   after.version = (await recordUpdate(tx, ctx, { resourceType: 'status_page', resourceId: id, changes })) ?? after.version;
 *
 * A create calls only recordAuditEvent (a new row starts at version 1); a delete claims the row, deletes it and
 * records the event. Whatever throws after the claim rolls the version and the event back with the write.
 */

/** The kinds of record an audit event names; those with a table carry `version` (and its ETag). */
export const RESOURCES = {
  monitor: { table: 'monitors', idColumn: 'id', noun: 'monitor' },
  component: { table: 'components', idColumn: 'id', noun: 'component' },
  status_page: { table: 'status_pages', idColumn: 'id', noun: 'status page' },
  maintenance_window: { table: 'maintenance_windows', idColumn: 'id', noun: 'maintenance window' },
  incident: { table: 'incidents', idColumn: 'id', noun: 'incident' },
  escalation_policy: { table: 'escalation_policies', idColumn: 'id', noun: 'escalation policy' },
  token: { table: 'api_tokens', idColumn: 'id', noun: 'token' },
  /** Members are addressed by their user id (`/members/{userId}`). */
  member: { table: 'memberships', idColumn: 'userId', noun: 'member' },
  subscriber: { table: 'status_page_subscribers', idColumn: 'id', noun: 'subscriber' },
  webhook: { table: 'webhooks', idColumn: 'id', noun: 'webhook' },
  /** Overrides and calendar tokens are recorded on their schedule (`schedule.override_added` ...). */
  schedule: { table: 'schedules', idColumn: 'id', noun: 'schedule' },
  wall_token: { table: 'wall_tokens', idColumn: 'id', noun: 'wall token' },
  /** Workspace secrets are addressed by name (`/secrets/{name}`); events name their id. */
  secret: { table: 'workspace_secrets', idColumn: 'id', noun: 'secret' },
  /** One per workspace, addressed by the workspace's id (`/settings/accounting`). */
  accounting_policy: { table: 'accounting_policies', idColumn: 'workspaceId', noun: 'accounting policy' },
  /** Only created (admin CLI `workspace create`): no version. */
  workspace: { table: null, idColumn: 'id', noun: 'workspace' },
  /** A member's own account (console password, second factor), recorded in each of their workspaces: no version. */
  user: { table: null, idColumn: 'id', noun: 'user' },
} as const;
export type ResourceType = keyof typeof RESOURCES;
export type VersionedResource = {
  [K in ResourceType]: (typeof RESOURCES)[K]['table'] extends null ? never : K;
}[ResourceType];
export const RESOURCE_TYPES = Object.keys(RESOURCES) as ResourceType[];

/**
 * What `If-Match` asked for: `*` (the record must exist), or the versions of its strong entity tags (`"3"`); an empty
 * list matches nothing (only weak or non-numeric tags were sent).
 */
export type IfMatch = '*' | readonly number[];

/** Who writes, where, when, and on which condition: a ServiceContext is one; the admin CLI builds its own. */
export interface WriteContext {
  workspace: { id: string };
  actor: AuditActor;
  now: Date;
  ifMatch?: IfMatch | undefined;
}

/** The admin CLI as an audit actor: the operating-system user that ran it, on this host. */
export function cliActor(): AuditActor {
  let user = process.env.USER ?? 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers): keep $USER.
  }
  return { type: 'cli', id: user, name: `${user}@${hostname()}` };
}

/** The admin CLI's writes in a workspace, audited as cliActor(). */
export function cliWriteContext(workspaceId: string, now = new Date()): WriteContext {
  return { workspace: { id: workspaceId }, actor: cliActor(), now };
}

/**
 * The If-Match check, first thing in a write's transaction: locks the record's row until the commit, on the condition
 * `If-Match` set (`SELECT ... FOR UPDATE` re-checks its WHERE on the latest committed row, and every versioned write
 * takes this lock), so two writers holding the same version cannot both pass. Returns the version it locked. 404 when
 * the record is not the workspace's; 412 (`precondition_failed`) when its version is not one If-Match names.
 */
export async function claimVersion(
  tx: Prisma.TransactionClient,
  ctx: WriteContext,
  type: VersionedResource,
  id: string,
): Promise<number> {
  const { table, idColumn, noun } = RESOURCES[type];
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError(noun, id);
  const where = Prisma.sql`${Prisma.raw(`"${idColumn}"`)} = ${id}::uuid AND "workspaceId" = ${ctx.workspace.id}::uuid`;
  const expected = ctx.ifMatch;
  const condition =
    expected === undefined || expected === '*' ? Prisma.empty : Prisma.sql`AND version = ANY(${[...expected]}::int[])`;
  const [claimed] = await tx.$queryRaw<Array<{ version: number }>>`
    SELECT version FROM ${Prisma.raw(`"${table}"`)} WHERE ${where} ${condition} FOR UPDATE`;
  if (claimed) return claimed.version;
  const [current] = await tx.$queryRaw<Array<{ version: number }>>`
    SELECT version FROM ${Prisma.raw(`"${table}"`)} WHERE ${where}`;
  if (!current) throw new NotFoundError(noun, id);
  throw new PreconditionFailedError(noun, current.version);
}

/**
 * The end of an update claimed with claimVersion: when a field changed, the version grows by one and the event
 * `<resourceType>.updated` (or `action`) is recorded; a write that changed nothing (an empty PATCH, a no-op action) leaves both
 * alone. Returns the new version, or undefined when nothing changed (the record's version stands).
 */
export async function recordUpdate(
  tx: Prisma.TransactionClient,
  ctx: WriteContext,
  event: { resourceType: VersionedResource; resourceId: string; changes: Changes; action?: string },
): Promise<number | undefined> {
  if (Object.keys(event.changes).length === 0) return undefined;
  return recordAuditEvent(tx, ctx, { ...event, action: event.action ?? 'updated' });
}

export { REDACTED };
export type Changes = Record<string, { from: unknown; to: unknown }>;

/** Never compared: the identity, the version itself and the bookkeeping times. */
const NOT_CHANGES = new Set(['id', 'version', 'createdAt', 'updatedAt']);

/**
 * The fields that differ between two records (as the API shows them: records never hold a secret), `from: null`
 * for a create (`before` null) and `to: null` for a delete (`after` null). `secrets` adds the write-only fields the
 * write touched, by whether a value was set before and after: they show only `"<redacted>"` or null.
 */
export function changesBetween(
  before: object | null,
  after: object | null,
  secrets: Record<string, readonly [had: boolean, has: boolean]> = {},
): Changes {
  const from = (before ?? {}) as Record<string, unknown>;
  const to = (after ?? {}) as Record<string, unknown>;
  const changes: Changes = {};
  if (before === null || after === null) {
    // A create or a delete: every field set on the one side is a change (nothing to compare, on every create).
    for (const [key, value] of Object.entries(before ?? to)) {
      if (value === null || value === undefined || NOT_CHANGES.has(key)) continue;
      changes[key] = before === null ? { from: null, to: value } : { from: value, to: null };
    }
  } else {
    for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
      if (NOT_CHANGES.has(key)) continue;
      const a = from[key] ?? null;
      const b = to[key] ?? null;
      if (JSON.stringify(a) !== JSON.stringify(b)) changes[key] = { from: a, to: b };
    }
  }
  for (const [key, [had, has]] of Object.entries(secrets)) {
    changes[key] = { from: had ? REDACTED : null, to: has ? REDACTED : null };
  }
  return changes;
}

/** What an audit event records: the resource, the verb (`created` ...) and its changes. */
export interface AuditedWrite {
  resourceType: ResourceType;
  resourceId: string;
  action: string;
  changes?: Changes | undefined;
}

/**
 * recordAuditEvent's insert alone (no version bump: a create's), for writeTogether: the event written in the same
 * round trip as other writes of the transaction.
 */
export function auditInsert(ctx: WriteContext, event: AuditedWrite): Prisma.Sql {
  return auditInserts([{ ctx, event }]);
}

/**
 * auditInsert for the writes of several requests, each with its own actor and clock (creates grouped in one
 * transaction), in one statement whose text is the same however many it holds. Raw SQL, not auditEvent.create: every
 * write records one, and the ORM's compiled create (returning the row, which no caller reads) costs several times this
 * statement's CPU. The events travel as one JSON array, their changes redacted (redactedJson).
 */
export function auditInserts(entries: ReadonlyArray<{ ctx: WriteContext; event: AuditedWrite }>): Prisma.Sql {
  const rows = entries.map(({ ctx, event }) => {
    const changes = event.changes && Object.keys(event.changes).length ? redactedJson(event.changes) : 'null';
    return (
      `{"workspaceId":${JSON.stringify(ctx.workspace.id)},"at":${JSON.stringify(ctx.now)},` +
      `"actorType":${JSON.stringify(ctx.actor.type)},"actorId":${JSON.stringify(ctx.actor.id.slice(0, 100))},` +
      `"actorName":${JSON.stringify(ctx.actor.name.slice(0, 320))},` +
      `"actorClientId":${JSON.stringify(ctx.actor.clientId ?? null)},` +
      `"action":${JSON.stringify(`${event.resourceType}.${event.action}`)},` +
      `"resourceType":${JSON.stringify(event.resourceType)},"resourceId":${JSON.stringify(event.resourceId)},` +
      `"changes":${changes}}`
    );
  });
  return Prisma.sql`
    INSERT INTO audit_events (id, "workspaceId", at, "actorType", "actorId", "actorName", "actorClientId", action,
      "resourceType", "resourceId", changes)
    SELECT gen_random_uuid(), a."workspaceId", a.at, a."actorType", a."actorId", a."actorName", a."actorClientId",
      a.action, a."resourceType", a."resourceId", a.changes
      FROM jsonb_populate_recordset(NULL::audit_events, ${`[${rows.join(',')}]`}::jsonb) AS a`;
}

/**
 * Records the one audit event of a successful write, in its transaction (a rollback takes the event with it):
 * `action` is the verb (`created`, `updated`, `deleted`, `acknowledged` ...), stored as `<resourceType>.<verb>`.
 * Empty `changes` are left out. Any action but `created` (a new row is at 1) and `deleted` is a change of a record
 * that still exists: its version grows by one here, and the new version is returned (undefined when the record
 * has no version, or is gone). An action that leaves the record as the API shows it says `edit: false` (a webhook
 * replay moves only the dispatcher's cursor): recorded, and the version stays, so a PATCH holding it still applies.
 */
export async function recordAuditEvent(
  tx: Prisma.TransactionClient,
  ctx: WriteContext,
  event: AuditedWrite & { edit?: false },
): Promise<number | undefined> {
  await tx.$executeRaw(auditInsert(ctx, event));
  const { table, idColumn } = RESOURCES[event.resourceType];
  if (!table || event.action === 'created' || event.action === 'deleted' || event.edit === false) return undefined;
  const [bumped] = await tx.$queryRaw<Array<{ version: number }>>`
    UPDATE ${Prisma.raw(`"${table}"`)} SET version = version + 1
     WHERE ${Prisma.raw(`"${idColumn}"`)} = ${event.resourceId}::uuid AND "workspaceId" = ${ctx.workspace.id}::uuid
     RETURNING version`;
  return bumped?.version;
}
