import { createHash } from 'node:crypto';
import {
  BRANDING_FIELDS,
  ConflictError,
  loadAccountingSettings,
  type AccountingSettings,
  ValidationError,
  type Config,
  type Issue,
  type Prisma,
  type SsrfGuard,
  type StatusPageBranding,
} from '@statusvane/shared';
import { assertTargetsAllowed, type CreateEscalationPolicyInput } from '../escalation-policies/policy-input.js';
import { dependencyListIssues, lockDependencies } from '../monitors/monitor-dependencies.js';
import { assertScheduleUsers } from '../schedules/schedule-input.js';
import { scheduleRecordSelect, type ScheduleRow } from '../schedules/schedule-record.js';
import { resolverIssues, targetIssues } from '../monitors/monitor-rules.js';
import { secretRefsOf, unknownSecretIssues } from '../monitors/monitor-secrets.js';
import { brandingSelect } from '../status-pages/status-page-record.js';
import { fail } from './config-document.js';
import type { ConfigDocument, DesiredStatusPage, View } from './config-schema.js';
import {
  configMonitorSelect,
  desiredMonitorView,
  monitorFingerprint,
  sameValue,
  shownValue,
  stableJson,
  storedMonitorView,
  type ConfigMonitorRow,
} from './monitor-views.js';
import {
  configPolicySelect,
  desiredPolicyView,
  shownSteps,
  storedPolicyView,
  type ConfigPolicyRow,
} from './policy-views.js';
import { desiredScheduleView, storedScheduleView } from './schedule-views.js';

export type ResourceType = 'monitor' | 'escalation_policy' | 'status_page' | 'accounting_policy' | 'schedule';
export type ChangeAction = 'create' | 'update' | 'delete' | 'noop';

/** One line of a plan, as the API shows it. */
export interface ConfigChange {
  action: ChangeAction;
  resourceType: ResourceType;
  ref: string;
  id: string | null;
  fields?: Record<string, { from: unknown; to: unknown }>;
}

/** A change with what applying it needs (never shown: it holds secrets in clear). */
export interface PlannedChange<Row = unknown> {
  change: ConfigChange;
  desired: View | null;
  stored: Row | null;
  /** The fields that differ (update). */
  changed: string[];
}

export interface ConfigPlan {
  planId: string;
  policies: PlannedChange<ConfigPolicyRow>[];
  monitors: PlannedChange<ConfigMonitorRow>[];
  statusPages: PlannedChange<StoredPage>[];
  schedules: PlannedChange<ScheduleRow>[];
  /** The accounting policy's change, when the document states it (ref `accounting`, id the workspace's). */
  accounting: PlannedChange<{ id: string }> | null;
  changes: ConfigChange[];
  summary: Record<ChangeAction, number>;
}

/** A transaction or the client: the plan reads through either. */
type Db = Prisma.TransactionClient;

const statusPageSelect = {
  id: true,
  ref: true,
  name: true,
  slug: true,
  isPublic: true,
  ...brandingSelect,
  sections: {
    orderBy: { position: 'asc' },
    select: { name: true, components: { orderBy: { position: 'asc' }, select: { componentId: true } } },
  },
} satisfies Prisma.StatusPageSelect;
export type StoredPage = Prisma.StatusPageGetPayload<{ select: typeof statusPageSelect }>;

export interface StoredState {
  policies: Map<string, ConfigPolicyRow>;
  monitors: Map<string, ConfigMonitorRow>;
  statusPages: Map<string, StoredPage>;
  schedules: Map<string, ScheduleRow>;
  /** Managed policies: id -> ref. */
  policyRefs: Map<string, string>;
  /** The workspace's default policy, managed or not (read to judge a move of the default, never written). */
  defaultPolicy: { id: string; ref: string | null; name: string } | null;
  /** The accounting policy (the defaults at version 1 while it has no row). */
  accounting: AccountingSettings;
}

/** The workspace's managed resources (those with a ref). Unmanaged ones are never read, compared or touched. */
export async function loadState(db: Db, workspaceId: string): Promise<StoredState> {
  const [monitors, pages, policies, workspace, accounting, schedules] = await Promise.all([
    db.monitor.findMany({
      where: { workspaceId, ref: { not: null } },
      select: configMonitorSelect,
      orderBy: { ref: 'asc' },
    }),
    db.statusPage.findMany({
      where: { workspaceId, ref: { not: null } },
      select: statusPageSelect,
      orderBy: { ref: 'asc' },
    }),
    db.escalationPolicy.findMany({
      where: { workspaceId, ref: { not: null }, archivedAt: null },
      select: configPolicySelect,
      orderBy: { ref: 'asc' },
    }),
    db.workspace.findUniqueOrThrow({
      where: { id: workspaceId },
      select: { defaultEscalationPolicy: { select: { id: true, ref: true, name: true } } },
    }),
    loadAccountingSettings(db, workspaceId),
    db.schedule.findMany({
      where: { workspaceId, ref: { not: null } },
      select: scheduleRecordSelect,
      orderBy: { ref: 'asc' },
    }),
  ]);
  return {
    policies: new Map(policies.map((p) => [p.ref!, p])),
    monitors: new Map(monitors.map((m) => [m.ref!, m])),
    statusPages: new Map(pages.map((p) => [p.ref!, p])),
    schedules: new Map(schedules.map((s) => [s.ref!, s])),
    policyRefs: new Map(policies.map((p) => [p.id, p.ref!])),
    defaultPolicy: workspace.defaultEscalationPolicy,
    accounting,
  };
}

/** The accounting policy as a document states it (its version is not a document field). */
export const accountingView = ({ version: _, ...fields }: AccountingSettings): View => ({ ...fields });

/** The branding fields of a page, stored or desired (a field a document leaves out is none: null). */
const brandingOf = (p: Partial<StatusPageBranding>): StatusPageBranding =>
  Object.fromEntries(BRANDING_FIELDS.map((f) => [f, p[f] ?? null])) as StatusPageBranding;

/** A stored page as the document sees it; a section component whose monitor the document does not manage shows by id. */
export function storedPageView(page: StoredPage, componentRefs: Map<string, string>): View {
  return {
    name: page.name,
    slug: page.slug,
    isPublic: page.isPublic,
    sections: page.sections.map((s) => ({
      name: s.name,
      monitors: s.components.map((c) => componentRefs.get(c.componentId) ?? c.componentId),
    })),
    ...brandingOf(page),
  };
}

const desiredPageView = (p: DesiredStatusPage): View => ({
  name: p.name,
  slug: p.slug,
  isPublic: p.isPublic,
  sections: p.sections.map((s) => ({ name: s.name, monitors: s.monitors })),
  ...brandingOf(p),
});

/** Field-by-field differences, secrets shown redacted. Fields the desired view leaves out are not compared. */
function differences(stored: View, desired: View, show: Show): { changed: string[]; fields: ConfigChange['fields'] } {
  const changed = Object.keys(desired).filter((f) => !sameValue(stored[f], desired[f]));
  return {
    changed,
    fields: Object.fromEntries(changed.map((f) => [f, { from: show(f, stored[f]), to: show(f, desired[f]) }])),
  };
}

/** How a field's value is shown in a plan (secrets redacted). */
type Show = (field: string, value: unknown) => unknown;
const SHOW: Record<ResourceType, Show> = {
  monitor: shownValue,
  escalation_policy: (field, value) => (field === 'steps' ? shownSteps(value) : value),
  status_page: (_field, value) => value,
  schedule: (_field, value) => value,
  accounting_policy: (_field, value) => value,
};

/** Every field of a created resource, from null. */
const created = (desired: View, show: Show) =>
  Object.fromEntries(Object.entries(desired).map(([f, v]) => [f, { from: null, to: show(f, v) }]));

function planOf<Row extends { id: string }>(
  resourceType: ResourceType,
  ref: string,
  stored: Row | undefined,
  storedView: View | null,
  desired: View,
): PlannedChange<Row> {
  if (!stored) {
    return {
      change: { action: 'create', resourceType, ref, id: null, fields: created(desired, SHOW[resourceType]) },
      desired,
      stored: null,
      changed: [],
    };
  }
  const { changed, fields } = differences(storedView!, desired, SHOW[resourceType]);
  return {
    change: changed.length
      ? { action: 'update', resourceType, ref, id: stored.id, fields }
      : { action: 'noop', resourceType, ref, id: stored.id },
    desired,
    stored,
    changed,
  };
}

const deletion = <Row extends { id: string }>(
  resourceType: ResourceType,
  ref: string,
  stored: Row,
): PlannedChange<Row> => ({
  change: { action: 'delete', resourceType, ref, id: stored.id },
  desired: null,
  stored,
  changed: [],
});

/**
 * Compares the document with the stored state: what apply would do, resource by resource. Judges what only the
 * stored state can tell (a type that cannot change, `"<redacted>"` with nothing stored behind it: 400; a slug another
 * page holds: 409) and the SSRF guard on every target the plan would write. Reads only.
 */
export async function computePlan(
  db: Db,
  deps: { config: Config; guard: SsrfGuard },
  workspaceId: string,
  doc: ConfigDocument,
  docHash: string,
): Promise<ConfigPlan> {
  const state = await loadState(db, workspaceId);
  const issues: Issue[] = [];

  const policies: PlannedChange<ConfigPolicyRow>[] = [];
  for (const d of doc.escalationPolicies) {
    const stored = state.policies.get(d.ref);
    const storedView = stored ? storedPolicyView(stored, deps.config.encryption) : null;
    const { view, issues: own } = desiredPolicyView(d.index, d.input, d.redacted, storedView);
    issues.push(...own);
    policies.push(planOf('escalation_policy', d.ref, stored, storedView, view));
  }
  const namedPolicies = new Set(doc.escalationPolicies.map((p) => p.ref));
  if (prunesAll(doc))
    for (const [ref, stored] of state.policies)
      if (!namedPolicies.has(ref)) policies.push(deletion('escalation_policy', ref, stored));
  policies.push(...previousDefaultChange(state, policies));

  const monitors: PlannedChange<ConfigMonitorRow>[] = [];
  const storedViews = new Map<string, View>();
  for (const d of doc.monitors) {
    const stored = state.monitors.get(d.ref);
    const storedView = stored ? storedMonitorView(stored, deps.config.encryption, state.policyRefs) : null;
    if (storedView) storedViews.set(d.ref, storedView);
    const { view, issues: own } = desiredMonitorView(d, storedView);
    issues.push(...own);
    if (stored && stored.type !== d.input.type) {
      issues.push({
        path: `monitors[${d.index}].type`,
        message: `cannot change from ${stored.type} to ${d.input.type}: give the new monitor another ref`,
      });
      continue;
    }
    monitors.push(planOf('monitor', d.ref, stored, storedView, view));
  }
  const named = new Set(doc.monitors.map((m) => m.ref));
  if (doc.prune)
    for (const [ref, stored] of state.monitors)
      if (!named.has(ref) && prunable(doc, ref)) monitors.push(deletion('monitor', ref, stored));

  // Section entries name monitors by ref; stored sections hold component ids.
  const componentRefs = new Map([...state.monitors.values()].map((m) => [m.componentId, m.ref!]));
  const statusPages: PlannedChange<StoredPage>[] = [];
  for (const p of doc.statusPages) {
    const stored = state.statusPages.get(p.ref);
    statusPages.push(
      planOf('status_page', p.ref, stored, stored ? storedPageView(stored, componentRefs) : null, desiredPageView(p)),
    );
  }
  const namedPages = new Set(doc.statusPages.map((p) => p.ref));
  if (prunesAll(doc))
    for (const [ref, stored] of state.statusPages)
      if (!namedPages.has(ref)) statusPages.push(deletion('status_page', ref, stored));

  const schedules: PlannedChange<ScheduleRow>[] = [];
  for (const d of doc.schedules) {
    const stored = state.schedules.get(d.ref);
    schedules.push(
      planOf('schedule', d.ref, stored, stored ? storedScheduleView(stored) : null, desiredScheduleView(d.input)),
    );
  }
  const namedSchedules = new Set(doc.schedules.map((s) => s.ref));
  if (doc.prune)
    for (const [ref, stored] of state.schedules)
      if (!namedSchedules.has(ref)) schedules.push(deletion('schedule', ref, stored));

  issues.push(
    ...(await scheduleUserIssues(db, workspaceId, doc, schedules)),
    ...(await networkIssues(deps.guard, doc, monitors)),
    ...(await policyTargetIssues(deps.guard, doc, policies)),
    ...(await dependsOnIssues(db, workspaceId, doc, monitors)),
    ...(await secretIssues(db, workspaceId, doc, monitors)),
  );
  if (issues.length) fail(issues);
  await assertSlugsFree(db, statusPages);

  // The accounting policy: one record per workspace, always there (its defaults), so only updated or left alone.
  const accounting = doc.accounting
    ? planOf('accounting_policy', 'accounting', { id: workspaceId }, accountingView(state.accounting), {
        ...doc.accounting,
      })
    : null;

  const changes = [...schedules, ...policies, ...monitors, ...statusPages, ...(accounting ? [accounting] : [])].map(
    (p) => p.change,
  );
  const summary = { create: 0, update: 0, delete: 0, noop: 0 };
  for (const c of changes) summary[c.action]++;
  return {
    planId: planIdOf(docHash, state, doc),
    policies,
    monitors,
    statusPages,
    accounting,
    schedules,
    changes,
    summary,
  };
}

/** `prune` over every kind of managed resource (a document), not only some monitors (an OpenAPI import). */
const prunesAll = (doc: ConfigDocument) => doc.prune && doc.pruneRefPrefix === undefined;
/** Whether `prune` may delete the managed monitor `ref`. */
const prunable = (doc: ConfigDocument, ref: string) =>
  doc.pruneRefPrefix === undefined || ref.startsWith(doc.pruneRefPrefix);

/**
 * A document that makes one of its policies the default takes the default from the policy that has it, whose record
 * then shows `isDefault: false`: a change of that policy, shown and recorded like any other. One the plan already
 * changes (named in the document, or pruned) needs nothing more; another managed one gets an `update` of `isDefault`
 * alone. An unmanaged one is never touched by config, so the move is refused (409) until the default is moved away
 * from it through the API (docs/decisions.md).
 */
function previousDefaultChange(
  state: StoredState,
  policies: PlannedChange<ConfigPolicyRow>[],
): PlannedChange<ConfigPolicyRow>[] {
  const moves = policies.some(
    (p) => p.desired?.isDefault === true && (p.change.action === 'create' || p.changed.includes('isDefault')),
  );
  const previous = state.defaultPolicy;
  if (!moves || !previous || policies.some((p) => p.stored?.id === previous.id)) return [];
  if (previous.ref === null)
    throw new ConflictError(
      `The workspace's default escalation policy is "${previous.name}" (${previous.id}), which config does not ` +
        'manage, and config never changes an unmanaged policy: make it no longer the default first ' +
        `(PATCH /escalation-policies/${previous.id} with isDefault: false), or leave isDefault out of the document`,
    );
  return [
    {
      change: {
        action: 'update',
        resourceType: 'escalation_policy',
        ref: previous.ref,
        id: previous.id,
        fields: { isDefault: { from: true, to: false } },
      },
      desired: { isDefault: false },
      stored: state.policies.get(previous.ref)!,
      changed: ['isDefault'],
    },
  ];
}

/**
 * The users of every schedule the plan creates or changes are members of the workspace, as POST and PATCH
 * /schedules judge them (assertScheduleUsers), each issue at its path in the document.
 */
async function scheduleUserIssues(
  db: Db,
  workspaceId: string,
  doc: ConfigDocument,
  plans: PlannedChange<ScheduleRow>[],
): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const d of doc.schedules) {
    const p = plans.find((x) => x.change.ref === d.ref)!;
    if (p.change.action === 'noop') continue;
    issues.push(...(await issuesAt(`schedules[${d.index}]`, () => assertScheduleUsers(db, workspaceId, d.input))));
  }
  return issues;
}

/** The 400 issues of an API rule (`check`), each at its path under `path` in the document; none when it passes. */
async function issuesAt(path: string, check: () => Promise<void>): Promise<Issue[]> {
  try {
    await check();
    return [];
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return (err.details as { issues: Issue[] }).issues.map((i) => ({ ...i, path: `${path}.${i.path}` }));
  }
}

/**
 * The SSRF guard on what the plan would write: the target (http, tcp) and resolver (dns) of every monitor created
 * or changed there. Unchanged monitors were judged when written. Each distinct target is looked up once.
 */
async function networkIssues(
  guard: SsrfGuard,
  doc: ConfigDocument,
  plans: PlannedChange<ConfigMonitorRow>[],
): Promise<Issue[]> {
  const index = new Map(doc.monitors.map((m) => [m.ref, m.index]));
  const checks: Array<{ path: string; run: () => Promise<Issue[]> }> = [];
  const memo = new Map<string, Promise<Issue[]>>();
  const once = (key: string, run: () => Promise<Issue[]>) => {
    if (!memo.has(key)) memo.set(key, run());
    return memo.get(key)!;
  };
  for (const p of plans) {
    if (!p.desired || p.change.action === 'noop' || p.change.action === 'delete') continue;
    const touches = (f: string) => p.change.action === 'create' || p.changed.includes(f);
    const path = `monitors[${index.get(p.change.ref)}]`;
    const { type, target, dnsResolver } = p.desired as { type: string; target: string; dnsResolver: string | null };
    if ((type === 'http' || type === 'tcp') && touches('target'))
      checks.push({ path, run: () => once(`${type} ${target}`, () => targetIssues(guard, type, target)) });
    if (type === 'dns' && dnsResolver && touches('dnsResolver'))
      checks.push({ path, run: () => once(`dns ${dnsResolver}`, () => resolverIssues(guard, dnsResolver)) });
  }
  const issues: Issue[] = [];
  // At most 50 lookups at once.
  for (let i = 0; i < checks.length; i += 50) {
    const batch = checks.slice(i, i + 50);
    const results = await Promise.all(batch.map((c) => c.run()));
    results.forEach((found, j) => issues.push(...found.map((x) => ({ ...x, path: `${batch[j]!.path}.${x.path}` }))));
  }
  return issues;
}

/** The fields whose `{{secrets.NAME}}` name workspace secrets, by type. */
const SECRET_BEARING: Record<string, readonly string[]> = { api: ['steps'], http: ['headers', 'body'] };

/**
 * The workspace secrets (`{{secrets.NAME}}`) that the monitors the plan creates or changes would name, by monitor:
 * what apply locks, and what must exist.
 */
export function plannedSecretRefs(plans: PlannedChange<ConfigMonitorRow>[]): Array<{ ref: string; names: string[] }> {
  return plans.flatMap((p) => {
    const fields = SECRET_BEARING[p.desired?.type as string] ?? [];
    if (!fields.length || !(p.change.action === 'create' || fields.some((f) => p.changed.includes(f)))) return [];
    const d = p.desired as Parameters<typeof secretRefsOf>[0];
    return [{ ref: p.change.ref, names: secretRefsOf(d) }];
  });
}

/** Every secret a created or changed monitor names is one of the workspace's (as POST and PATCH /monitors judge it). */
async function secretIssues(
  db: Db,
  workspaceId: string,
  doc: ConfigDocument,
  plans: PlannedChange<ConfigMonitorRow>[],
): Promise<Issue[]> {
  const index = new Map(doc.monitors.map((m) => [m.ref, m.index]));
  const issues: Issue[] = [];
  for (const { ref, names } of plannedSecretRefs(plans)) {
    const type = plans.find((p) => p.change.ref === ref)!.desired!.type as string;
    const at = `monitors[${index.get(ref)}].${SECRET_BEARING[type]![0]}`;
    issues.push(...(await unknownSecretIssues(db, workspaceId, names, at)));
  }
  return issues;
}

/**
 * `dependsOn` of every monitor the plan creates or gives a new list, judged as POST and PATCH /monitors judge it
 * (dependencyListIssues: each id a monitor of the workspace, no cycle), at its path in the document. The lists are
 * judged together, as apply writes them: two monitors of the document that would depend on each other, or close a
 * cycle through stored monitors the document does not name, are refused at each one's `dependsOn`; an id of a
 * monitor this document prunes is refused too (apply deletes first). Apply judges them again in its write, with
 * `lock`: under the dependency lock that monitor writes and deletes take.
 */
export async function dependsOnIssues(
  db: Db,
  workspaceId: string,
  doc: ConfigDocument,
  plans: PlannedChange<ConfigMonitorRow>[],
  { lock = false } = {},
): Promise<Issue[]> {
  const index = new Map(doc.monitors.map((m) => [m.ref, m.index]));
  const pruned = new Set(plans.flatMap((p) => (p.change.action === 'delete' ? [p.stored!.id] : [])));
  const judged = plans.filter((p) => p.change.action === 'create' || p.changed.includes('dependsOn'));
  const lists = judged.map((p) => ({
    monitorId: p.stored?.id ?? null,
    dependsOn: (p.desired!.dependsOn ?? []) as string[],
  }));
  if (lists.every((l) => l.dependsOn.length === 0)) return [];
  if (lock) await lockDependencies(db, workspaceId);
  const found = await dependencyListIssues(db, workspaceId, lists, {
    ids: pruned,
    message: 'is a monitor this document deletes (prune)',
  });
  return judged.flatMap((p, i) =>
    found[i]!.map((x) => ({ ...x, path: `monitors[${index.get(p.change.ref)}].${x.path}` })),
  );
}

/** The SSRF guard on the URL targets of every policy the plan would create or give new steps, as the policy API judges them. */
async function policyTargetIssues(
  guard: SsrfGuard,
  doc: ConfigDocument,
  plans: PlannedChange<ConfigPolicyRow>[],
): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const d of doc.escalationPolicies) {
    const p = plans.find((x) => x.change.ref === d.ref)!;
    if (p.change.action !== 'create' && !p.changed.includes('steps')) continue;
    issues.push(
      ...(await issuesAt(`escalationPolicies[${d.index}]`, () =>
        assertTargetsAllowed(guard, p.desired!.steps as CreateEscalationPolicyInput['steps']),
      )),
    );
  }
  return issues;
}

/** Slugs are unique across workspaces: one the plan would give a page, held by a page outside this plan, is 409. */
async function assertSlugsFree(db: Db, plans: PlannedChange<StoredPage>[]): Promise<void> {
  const wanted = plans.filter((p) => p.change.action === 'create' || p.changed.includes('slug'));
  if (wanted.length === 0) return;
  const slugs = wanted.map((p) => p.desired!.slug as string);
  const ours = new Set(plans.map((p) => p.stored?.id).filter(Boolean));
  const holders = await db.statusPage.findMany({ where: { slug: { in: slugs } }, select: { id: true, slug: true } });
  const taken = holders.find((h) => !ours.has(h.id));
  if (taken)
    throw new ConflictError(`The slug "${taken.slug}" is already taken`, { slug: taken.slug, reason: 'taken' });
}

/**
 * A plan's id: the document it read and the state of every resource it compared (the managed resources the document
 * names, and with `prune` every managed one), monitors without what checks and pings write (monitorFingerprint).
 * Secrets enter as their stored ciphertext, never in clear. Apply with this id recomputes both: another document, or
 * any compared resource changed since, is 409.
 */
function planIdOf(docHash: string, state: StoredState, doc: ConfigDocument): string {
  const compared = <T>(stored: Map<string, T>, named: string[]) => {
    const pruned = doc.prune ? [...stored.keys()].filter((ref) => prunable(doc, ref)) : [];
    return [...new Set([...named, ...pruned])].sort().map((ref) => [ref, stored.get(ref) ?? null] as const);
  };
  const fingerprint = createHash('sha256')
    .update(
      stableJson({
        monitors: compared(
          new Map([...state.monitors].map(([ref, row]) => [ref, monitorFingerprint(row)])),
          doc.monitors.map((m) => m.ref),
        ),
        statusPages: compared(
          state.statusPages,
          doc.statusPages.map((p) => p.ref),
        ),
        policies: compared(
          state.policies,
          doc.escalationPolicies.map((p) => p.ref),
        ),
        schedules: compared(
          state.schedules,
          doc.schedules.map((s) => s.ref),
        ),
        policyRefs: [...state.policyRefs.entries()].sort(),
        // Whose default the document may take: a move of it since the plan changes what apply would change.
        defaultPolicy: state.defaultPolicy?.id ?? null,
        accounting: doc.accounting ? state.accounting.version : null,
      }),
    )
    .digest('hex');
  return `${docHash.slice(0, 16)}${fingerprint.slice(0, 16)}`;
}

/** The document's hash, whatever its syntax (JSON or YAML) and key order. */
export const documentHash = (raw: unknown) => createHash('sha256').update(stableJson(raw)).digest('hex');
