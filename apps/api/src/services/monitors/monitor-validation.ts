import {
  monitorRegions,
  createMonitorSchema,
  dnsHostSchema,
  formatPath,
  httpTargetSchema,
  issuesFromZod,
  tcpTargetSchema,
  UPDATE_FIELDS_BY_TYPE,
  updateMonitorSchema,
  type CreateMonitorInput,
  type PrismaClient,
  type Issue,
  type SsrfGuard,
  type UpdateMonitorInput,
} from '@statusvane/shared';
import { failWith, hasIssueAt, isAt, isObject, knownValue, type Raw } from '../validation.js';
import { dependencyIssues } from './monitor-dependencies.js';
import { crossFieldIssues, intervalOrScheduleIssues, resolverIssues, targetIssues } from './monitor-rules.js';

/*
 * A write is judged in stages (the schema, the fields this type takes, the target's format, the rules between
 * fields, the SSRF guard), but answered once: every stage runs on whatever the earlier ones left judgeable, and one
 * 400 names every offending field. A stage skips only a field that already failed its own checks (a rule between
 * `method` and `body` says nothing useful about a `body` that is not a string), never the whole request.
 */

/**
 * `__proto__` as a header or metadata name: JSON.parse makes it an own key, but every object copy (Zod's included)
 * drops it silently, so the monitor would be stored without what was sent. Refused by name instead.
 */
function reservedKeyIssues(raw: Raw, fields: readonly string[]): Issue[] {
  return fields
    .filter((f) => isObject(raw[f]) && Object.prototype.hasOwnProperty.call(raw[f], '__proto__'))
    .map((f) => ({ path: `${f}.__proto__`, message: '"__proto__" cannot be used as a name' }));
}

function fail(issues: Issue[]): never {
  return failWith('monitor', issues);
}

/**
 * `regions` must name regions of CHECK_REGIONS, and `quorum` can be at most the number of regions (those sent, else
 * the stored ones, else all). `stored` is the monitor before an update (regions as stored, quorum as stored).
 */
function regionIssues(
  checkRegions: readonly string[],
  input: Raw,
  issues: Issue[],
  stored: { regions: string[]; quorum: number | null } = { regions: [], quorum: null },
): Issue[] {
  const out: Issue[] = [];
  const sent = Array.isArray(input.regions) && !hasIssueAt(issues, 'regions') ? (input.regions as string[]) : null;
  sent?.forEach((r, i) => {
    if (!checkRegions.includes(r))
      out.push({
        path: `regions[${i}]`,
        message: `is not one of the regions checked from (${checkRegions.join(', ')})`,
      });
  });
  if (out.length || hasIssueAt(issues, 'regions') || hasIssueAt(issues, 'quorum')) return out;
  const quorum = input.quorum === undefined ? stored.quorum : (input.quorum as number | null);
  const regions = monitorRegions(checkRegions, { type: 'http', regions: sent ?? stored.regions });
  if (quorum !== null && quorum > regions.length) {
    out.push({
      path: 'quorum',
      message: `must be at most the number of the monitor's regions (${regions.length}: ${regions.join(', ')})`,
    });
  }
  return out;
}

/**
 * POST /monitors: the parsed input, or a 400 naming every problem the request has. Without a guard (`null`) the
 * network checks (SSRF guard on target and resolver) are left to the caller: config/apply runs them only for the
 * monitors whose target it changes. With `database`, `dependsOn` is judged too (createMonitor judges it again in
 * its write); config/apply judges its documents' dependencies itself.
 */
export async function validateCreateInput(
  guard: SsrfGuard | null,
  checkRegions: readonly string[],
  input: unknown,
  database?: { prisma: PrismaClient; workspaceId: string },
): Promise<CreateMonitorInput> {
  const parsed = createMonitorSchema.safeParse(input);
  const issues = parsed.success ? [] : issuesFromZod(parsed.error);
  if (isObject(input)) {
    issues.push(...reservedKeyIssues(input, ['headers', 'metadata']));
    const type = input.type === undefined ? 'http' : input.type;
    if (type === 'heartbeat') issues.push(...intervalOrScheduleIssues(input));
    // With a type that is none of the four the schema reports only `type`: nothing else can be judged.
    if (guard && type === 'dns' && typeof input.dnsResolver === 'string' && !hasIssueAt(issues, 'dnsResolver'))
      issues.push(...(await resolverIssues(guard, input.dnsResolver)));
    if (type === 'http' || type === 'tcp' || type === 'dns') {
      issues.push(...regionIssues(checkRegions, input, issues));
      // A DNS monitor connects only to its resolver: its target is a name to ask about, not an address to reach.
      if (guard && type !== 'dns' && typeof input.target === 'string' && !hasIssueAt(issues, 'target'))
        issues.push(...(await targetIssues(guard, type, input.target)));
      /** The value of a field that passed its own checks (`absent` when not sent), else undefined. */
      const known = <T>(field: string, absent: T): T | undefined =>
        hasIssueAt(issues, field) ? undefined : ((input[field] ?? absent) as T);
      issues.push(
        ...crossFieldIssues({
          method: type === 'http' ? known<string>('method', 'GET') : undefined,
          hasBody: type === 'http' && !hasIssueAt(issues, 'body') ? typeof input.body === 'string' : undefined,
        }),
      );
    }
    // The schema judged each id (a union of the types: no field schema to parse alone); no issue there means valid.
    const dependsOn = hasIssueAt(issues, 'dependsOn') ? undefined : input.dependsOn;
    if (database && Array.isArray(dependsOn))
      issues.push(
        ...(await dependencyIssues(database.prisma, {
          workspaceId: database.workspaceId,
          monitorId: null,
          dependsOn: dependsOn as string[],
        })),
      );
  }
  if (issues.length || !parsed.success) fail(issues.length ? issues : [{ path: '', message: 'Invalid monitor' }]);
  return parsed.data;
}

/** What an update is judged against: the monitor as read before the write. */
export interface MonitorBeforeUpdate {
  id: string;
  type: 'http' | 'tcp' | 'heartbeat' | 'dns';
  regions: string[];
  quorum: number | null;
  method: string;
  bodyEnc: string | null;
}

const UPDATE_FIELDS = new Set(Object.keys(updateMonitorSchema.shape));

/**
 * PATCH /monitors/{id}: the parsed input, or a 400 naming every problem. The rules between fields are judged here on
 * `current`, read outside the write's transaction; updateMonitor judges them again on the locked row.
 */
export async function validateUpdateInput(
  guard: SsrfGuard,
  checkRegions: readonly string[],
  current: MonitorBeforeUpdate,
  input: unknown,
  database: { prisma: PrismaClient; workspaceId: string },
): Promise<UpdateMonitorInput> {
  const parsed = updateMonitorSchema.safeParse(input);
  let issues = parsed.success ? [] : issuesFromZod(parsed.error);
  if (isObject(input)) {
    // A field this type does not take is one issue, "not accepted", whatever the schema thought of its value.
    // `type` and `metadata` keep the schema's own message (refused for every type).
    const allowed = UPDATE_FIELDS_BY_TYPE[current.type];
    const foreign = Object.keys(input).filter(
      (k) => UPDATE_FIELDS.has(k) && !allowed.has(k) && k !== 'type' && k !== 'metadata',
    );
    issues = issues.filter((i) => !foreign.some((f) => isAt(i.path, f)));
    issues.push(...foreign.map((path) => ({ path, message: `not accepted for ${current.type} monitors` })));
    if (allowed.has('headers')) issues.push(...reservedKeyIssues(input, ['headers']));
    if (allowed.has('dnsResolver') && typeof input.dnsResolver === 'string' && !hasIssueAt(issues, 'dnsResolver'))
      issues.push(...(await resolverIssues(guard, input.dnsResolver)));
    if (current.type === 'heartbeat') issues.push(...intervalOrScheduleIssues(input));
    else issues.push(...regionIssues(checkRegions, input, issues, current));

    if (current.type !== 'heartbeat' && typeof input.target === 'string' && !hasIssueAt(issues, 'target')) {
      const schema = { http: httpTargetSchema, tcp: tcpTargetSchema, dns: dnsHostSchema }[current.type];
      const format = schema.safeParse(input.target);
      if (format.success) {
        if (current.type !== 'dns') issues.push(...(await targetIssues(guard, current.type, input.target)));
      } else
        issues.push(
          ...format.error.issues.map((i) => ({ path: formatPath(['target', ...i.path]), message: i.message })),
        );
    }

    /** A field's value after the write: the one sent if it passed its own checks, else the stored one; undefined if it failed. */
    const after = <T>(field: string, stored: T): T | undefined =>
      hasIssueAt(issues, field) ? undefined : input[field] !== undefined ? (input[field] as T) : stored;
    const body = after<string | null>('body', current.bodyEnc);
    issues.push(
      ...crossFieldIssues({
        method: after('method', current.method),
        hasBody: body === undefined ? undefined : body !== null,
      }),
    );
    // What the database judges, read here so that it joins the other issues; updateMonitor judges both again in its
    // write (a policy deleted, a monitor deleted or a cycle closed meanwhile).
    const policy = allowed.has('escalationPolicyId')
      ? knownValue(updateMonitorSchema, input, issues, 'escalationPolicyId')
      : undefined;
    if (typeof policy === 'string') issues.push(...(await policyIssues(database.prisma, database.workspaceId, policy)));
    const dependsOn = allowed.has('dependsOn')
      ? knownValue(updateMonitorSchema, input, issues, 'dependsOn')
      : undefined;
    if (Array.isArray(dependsOn))
      issues.push(
        ...(await dependencyIssues(database.prisma, {
          workspaceId: database.workspaceId,
          monitorId: current.id,
          dependsOn: dependsOn as string[],
        })),
      );
  }
  if (issues.length || !parsed.success) fail(issues.length ? issues : [{ path: '', message: 'Invalid monitor' }]);
  return parsed.data;
}

/** `escalationPolicyId` must name a policy of the workspace that is not archived. */
async function policyIssues(
  db: Pick<PrismaClient, 'escalationPolicy'>,
  workspaceId: string,
  id: string,
): Promise<Issue[]> {
  const found = await db.escalationPolicy.count({ where: { id, workspaceId, archivedAt: null } });
  return found ? [] : [{ path: 'escalationPolicyId', message: 'is not an escalation policy of this workspace' }];
}
