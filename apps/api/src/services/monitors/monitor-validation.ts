import {
  type MonitorKind,
  monitorRegions,
  createMonitorSchema,
  dnsHostSchema,
  domainTargetSchema,
  MONITOR_LIMITS,
  fillTemplates,
  formatPath,
  httpTargetSchema,
  tcpTargetSchema,
  UPDATE_FIELDS_BY_TYPE,
  updateMonitorSchema,
  type Config,
  type CreateMonitorInput,
  type PrismaClient,
  type Issue,
  type SsrfGuard,
  type ApiStepInput,
} from '@statusvane/shared';
import {
  hasIssueAt,
  isAt,
  isObject,
  judgeBody,
  knownValue,
  type BodyChecks,
  type Judging,
  type Raw,
} from '../validation.js';
import { findOwn } from '../records.js';
import { dependencyIssues } from './monitor-dependencies.js';
import { monitorLookup } from './monitor-record.js';
import { crossFieldIssues, intervalOrScheduleIssues, resolverIssues, targetIssues } from './monitor-rules.js';
import {
  keepStoredStepSecrets,
  mentionsRedacted,
  openStoredSteps,
  secretRefsOf,
  unknownSecretIssues,
} from './monitor-secrets.js';

type Database = { prisma: PrismaClient; workspaceId: string };

/**
 * An api monitor's steps beyond their schema: every `{{secrets.NAME}}` a secret of the workspace (with `database`),
 * and the SSRF guard on each step whose scheme and host are written out (one whose host comes from a template is
 * judged when it runs, like every step: the worker's guard judges each connection whatever its url came from).
 */
async function stepIssues(guard: SsrfGuard | null, steps: readonly ApiStepInput[], database?: Database) {
  const issues: Issue[] = [];
  if (database)
    issues.push(
      ...(await unknownSecretIssues(database.prisma, database.workspaceId, secretRefsOf({ steps }), 'steps')),
    );
  if (guard)
    for (const [i, step] of steps.entries()) {
      const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(step.url)?.[0];
      if (!authority || authority.includes('{{')) continue;
      const found = await targetIssues(guard, 'http', fillTemplates(step.url, 'x'));
      issues.push(...found.map((x) => ({ ...x, path: `steps[${i}].url` })));
    }
  return issues;
}

/** An http monitor's `{{secrets.NAME}}` in its headers and body: each a secret of the workspace. */
function httpSecretIssues(input: Raw, issues: Issue[], database: Database): Promise<Issue[]> {
  const headers = hasIssueAt(issues, 'headers') || !isObject(input.headers) ? undefined : input.headers;
  const body = hasIssueAt(issues, 'body') || typeof input.body !== 'string' ? undefined : input.body;
  return unknownSecretIssues(
    database.prisma,
    database.workspaceId,
    secretRefsOf({ headers: headers as Record<string, string> | undefined, body }),
    'headers',
  );
}

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
 * The stages of POST /monitors after the schema: `__proto__` names, a heartbeat's interval or schedule, the resolver
 * and target (SSRF guard), regions and quorum, the rules between fields and, with `database`, `dependsOn`. Without a
 * guard (`null`) the network checks are left to the caller: config/apply runs them only for the monitors whose
 * target it changes, and judges its documents' dependencies itself.
 */
async function createIssues(
  guard: SsrfGuard | null,
  checkRegions: readonly string[],
  { body: input, issues: schemaIssues }: Judging<typeof createMonitorSchema>,
  database?: { prisma: PrismaClient; workspaceId: string },
): Promise<Issue[]> {
  const issues = [...schemaIssues, ...reservedKeyIssues(input, ['headers', 'metadata'])];
  const type = input.type === undefined ? 'http' : input.type;
  if (type === 'heartbeat')
    issues.push(
      ...intervalOrScheduleIssues(input),
      ...crossFieldIssues({
        method: undefined,
        hasBody: undefined,
        minRunSeconds: hasIssueAt(issues, 'minRunSeconds') ? undefined : (input.minRunSeconds as number | undefined),
        maxRunSeconds: hasIssueAt(issues, 'maxRunSeconds') ? undefined : (input.maxRunSeconds as number | undefined),
      }),
    );
  if (type === 'api') {
    issues.push(...regionIssues(checkRegions, input, issues));
    if (Array.isArray(input.steps) && !hasIssueAt(issues, 'steps'))
      issues.push(...(await stepIssues(guard, input.steps as ApiStepInput[], database)));
  }
  if (type === 'http' && database) issues.push(...(await httpSecretIssues(input, issues, database)));
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
        minRunSeconds: null,
        maxRunSeconds: null,
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
  return issues;
}

/** What the checks of a monitor body use. */
type ChecksDeps = { prisma: PrismaClient; guard: SsrfGuard; config: Pick<Config, 'checkRegions' | 'encryption'> };

/** POST /monitors: what its schema cannot judge (createIssues), with the SSRF guard and the workspace's monitors. */
export const createMonitorChecks: BodyChecks<typeof createMonitorSchema, ChecksDeps> = {
  noun: 'monitor',
  judge: (deps, at) =>
    createIssues(deps.guard, deps.config.checkRegions, at, { prisma: deps.prisma, workspaceId: at.ctx.workspace.id }),
};

/**
 * A monitor body of a config document, judged as POST /monitors judges it but without the network checks and
 * `dependsOn` (config/apply judges those for the monitors it writes): the parsed input, or one 400 naming every
 * problem.
 */
export function validateCreateInput(checkRegions: readonly string[], input: unknown): Promise<CreateMonitorInput> {
  return judgeBody('monitor', createMonitorSchema, input, (at) => createIssues(null, checkRegions, at));
}

/** What an update is judged against: the monitor as read before the write. */
export interface MonitorBeforeUpdate {
  id: string;
  type: MonitorKind;
  regions: string[];
  quorum: number | null;
  method: string;
  bodyEnc: string | null;
  steps: unknown;
  stepSecretsEnc: string | null;
  minRunSeconds: number | null;
  maxRunSeconds: number | null;
}

const UPDATE_FIELDS = new Set(Object.keys(updateMonitorSchema.shape));

/**
 * The stages of PATCH /monitors/{id} after the schema, judged against `current`, the monitor as read before the
 * write: the fields its type takes, `__proto__` names, the resolver and target (format and SSRF guard), regions and
 * quorum or a heartbeat's interval, the rules between fields, the policy and `dependsOn`. updateMonitor judges the
 * rules between fields, the policy and `dependsOn` again on the locked row.
 */
async function updateIssues(
  guard: SsrfGuard,
  config: Pick<Config, 'checkRegions' | 'encryption'>,
  current: MonitorBeforeUpdate,
  { body: input, issues: schemaIssues }: Judging<typeof updateMonitorSchema>,
  database: { prisma: PrismaClient; workspaceId: string },
): Promise<Issue[]> {
  // A field this type does not take is one issue, "not accepted", whatever the schema thought of its value.
  // `type` and `metadata` keep the schema's own message (refused for every type).
  const allowed = UPDATE_FIELDS_BY_TYPE[current.type];
  const foreign = Object.keys(input).filter(
    (k) => UPDATE_FIELDS.has(k) && !allowed.has(k) && k !== 'type' && k !== 'metadata',
  );
  const issues = schemaIssues.filter((i) => !foreign.some((f) => isAt(i.path, f)));
  issues.push(...foreign.map((path) => ({ path, message: `not accepted for ${current.type} monitors` })));
  if (allowed.has('headers')) issues.push(...reservedKeyIssues(input, ['headers']));
  if (allowed.has('dnsResolver') && typeof input.dnsResolver === 'string' && !hasIssueAt(issues, 'dnsResolver'))
    issues.push(...(await resolverIssues(guard, input.dnsResolver)));
  if (current.type === 'heartbeat') issues.push(...intervalOrScheduleIssues(input));
  else issues.push(...regionIssues(config.checkRegions, input, issues, current));
  // The update schema takes every type's interval; a domain's registry is asked at most hourly.
  const interval = knownValue(updateMonitorSchema, input, issues, 'intervalSeconds');
  if (current.type === 'domain' && typeof interval === 'number' && interval < MONITOR_LIMITS.domainIntervalMin)
    issues.push({
      path: 'intervalSeconds',
      message: `must be at least ${MONITOR_LIMITS.domainIntervalMin} for domain monitors`,
    });
  if (current.type === 'http') issues.push(...(await httpSecretIssues(input, issues, database)));
  const steps = allowed.has('steps') ? knownValue(updateMonitorSchema, input, issues, 'steps') : undefined;
  if (Array.isArray(steps)) {
    const sent = steps as ApiStepInput[];
    const kept = mentionsRedacted(sent)
      ? keepStoredStepSecrets(sent, openStoredSteps(current, config.encryption))
      : { steps: sent, issues: [] };
    issues.push(...kept.issues, ...(await stepIssues(guard, kept.steps, database)));
  }

  if (
    current.type !== 'heartbeat' &&
    current.type !== 'api' &&
    typeof input.target === 'string' &&
    !hasIssueAt(issues, 'target')
  ) {
    const schema = { http: httpTargetSchema, tcp: tcpTargetSchema, dns: dnsHostSchema, domain: domainTargetSchema }[
      current.type
    ];
    const format = schema.safeParse(input.target);
    if (format.success) {
      // Only http and tcp targets are dialled: a dns or domain target is a name asked about.
      if (current.type === 'http' || current.type === 'tcp')
        issues.push(...(await targetIssues(guard, current.type, input.target)));
    } else
      issues.push(...format.error.issues.map((i) => ({ path: formatPath(['target', ...i.path]), message: i.message })));
  }

  /** A field's value after the write: the one sent if it passed its own checks, else the stored one; undefined if it failed. */
  const after = <T>(field: string, stored: T): T | undefined =>
    hasIssueAt(issues, field) ? undefined : input[field] !== undefined ? (input[field] as T) : stored;
  const body = after<string | null>('body', current.bodyEnc);
  issues.push(
    ...crossFieldIssues({
      method: after('method', current.method),
      hasBody: body === undefined ? undefined : body !== null,
      minRunSeconds: after('minRunSeconds', current.minRunSeconds),
      maxRunSeconds: after('maxRunSeconds', current.maxRunSeconds),
    }),
  );
  // What the database judges, read here so that it joins the other issues; updateMonitor judges both again in its
  // write (a policy deleted, a monitor deleted or a cycle closed meanwhile).
  const policy = allowed.has('escalationPolicyId')
    ? knownValue(updateMonitorSchema, input, issues, 'escalationPolicyId')
    : undefined;
  if (typeof policy === 'string') issues.push(...(await policyIssues(database.prisma, database.workspaceId, policy)));
  const dependsOn = allowed.has('dependsOn') ? knownValue(updateMonitorSchema, input, issues, 'dependsOn') : undefined;
  if (Array.isArray(dependsOn))
    issues.push(
      ...(await dependencyIssues(database.prisma, {
        workspaceId: database.workspaceId,
        monitorId: current.id,
        dependsOn: dependsOn as string[],
      })),
    );
  return issues;
}

/**
 * PATCH /monitors/{id}: what its schema cannot judge (updateIssues), against the monitor as stored (404 first when
 * there is none in the workspace).
 */
export const updateMonitorChecks: BodyChecks<typeof updateMonitorSchema, ChecksDeps> = {
  noun: 'monitor',
  judge: async (deps, at) => {
    const current = await findOwn(deps.prisma, at.ctx, monitorLookup, at.params.id!);
    return updateIssues(deps.guard, deps.config, current, at, {
      prisma: deps.prisma,
      workspaceId: at.ctx.workspace.id,
    });
  },
};

/** `escalationPolicyId` must name a policy of the workspace that is not archived. */
async function policyIssues(
  db: Pick<PrismaClient, 'escalationPolicy'>,
  workspaceId: string,
  id: string,
): Promise<Issue[]> {
  const found = await db.escalationPolicy.count({ where: { id, workspaceId, archivedAt: null } });
  return found ? [] : [{ path: 'escalationPolicyId', message: 'is not an escalation policy of this workspace' }];
}
