import { randomUUID } from 'node:crypto';
import {
  ConflictError,
  followCommittedSchedules,
  type CreateMonitorInput,
  type LayoutInput,
  type Prisma,
  type UpdateMonitorInput,
} from '@statusvane/shared';
import { claimVersion, recordAuditEvent } from '../audit/record-write.js';
import type { ServiceContext } from '../context.js';
import { monitorCreateData, monitorUpdateData } from '../monitors/monitor-data.js';
import { insertMonitors } from '../monitors/monitor-insert.js';
import { createPolicyInTx } from '../escalation-policies/create-escalation-policy.js';
import { deletePolicyInTx } from '../escalation-policies/delete-escalation-policy.js';
import type { UpdateEscalationPolicyInput } from '../escalation-policies/policy-input.js';
import { updatePolicyInTx } from '../escalation-policies/update-escalation-policy.js';
import { recordMonitorEvents } from '../monitors/monitor-events.js';
import { removeMonitorInTx, type ResolvedByDelete } from '../monitors/delete-monitor.js';
import { afterMonitorsRemoved } from '../incidents/stop-ladder.js';
import { isUniqueViolation } from '../records.js';
import { logFailure } from '../best-effort.js';
import { checkNow, SCHEDULES_RECONCILED } from '../monitors/monitor-schedule.js';
import { replaceLayout } from '../status-pages/replace-layout.js';
import { createScheduleInTx } from '../schedules/create-schedule.js';
import { deleteScheduleInTx } from '../schedules/delete-schedule.js';
import type { UpdateScheduleInput } from '../schedules/schedule-input.js';
import { updateScheduleInTx } from '../schedules/update-schedule.js';
import type { AccountingSettingsInput } from '../settings/accounting-settings-record.js';
import { writeAccountingPolicyInTx } from '../settings/update-accounting-settings.js';
import type { ConfigDeps } from './config-deps.js';
import { fail } from './config-document.js';
import type { ConfigDocument } from './config-schema.js';
import { computePlan, dependsOnIssues, plannedSecretRefs, type ConfigChange, type ConfigPlan } from './config-state.js';
import { lockSecrets } from '../monitors/monitor-secrets.js';
import type { ConfigPlanRecord } from './plan-config.js';

/** A large document is written in one transaction: PostgreSQL holds it, Prisma's 5 s default would not. */
const TRANSACTION = { maxWait: 10_000, timeout: 120_000 };
/** First checks queued after the commit, this many at once. */
const RUN_NOW_BATCH = 200;

/**
 * A document read (readConfigDocument), planned again under the workspace's lock and applied in one transaction:
 * what POST /config/apply and an OpenAPI import with `apply` do. `planId`: 409 unless the plan is still that one.
 * `inTransaction`: called with the applied plan in the write's transaction (an Idempotency-Key's stored answer).
 */
export async function applyDocument(
  deps: ConfigDeps,
  ctx: ServiceContext,
  doc: ConfigDocument,
  hash: string,
  planId: string | undefined,
  inTransaction?: (tx: Prisma.TransactionClient, applied: ConfigPlanRecord) => Promise<void>,
): Promise<ConfigPlanRecord> {
  const ws = ctx.workspace.id;

  let written: Awaited<ReturnType<typeof write>>;
  try {
    written = await deps.prisma.$transaction(async (tx) => {
      // One apply per workspace at a time: the second plans on the state the first committed.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`config:${ws}`}, 0))`;
      const plan = await computePlan(tx, deps, ws, doc, hash);
      if (planId !== undefined && planId !== plan.planId) {
        throw new ConflictError(
          plan.planId.slice(0, 16) === String(planId).slice(0, 16)
            ? `The workspace changed since plan ${String(planId)}: plan again`
            : `The document is not the one plan ${String(planId)} was made for: plan again`,
        );
      }
      const done = await write(tx, deps, ctx, doc, plan);
      await inTransaction?.(tx, { planId: plan.planId, changes: plan.changes, summary: plan.summary });
      return done;
    }, TRANSACTION);
  } catch (err) {
    // Two applies (or an apply and a PATCH) racing for one slug: the unique index decides.
    if (isUniqueViolation(err))
      throw new ConflictError('A slug or ref of the document was taken meanwhile: plan again');
    throw err;
  }

  const { plan, createdIds, rescheduleIds, resolved } = written;
  // Should Redis fail here, the reconciler brings the schedules in line within a round.
  await followCommittedSchedules(deps.scheduler, deps.prisma, rescheduleIds).catch(
    logFailure(
      deps.logger,
      'config applied; schedules not confirmed',
      { monitors: rescheduleIds.length },
      SCHEDULES_RECONCILED,
    ),
  );
  // The first checks, queued after the commit so that workers find the monitors.
  const firsts = plan.monitors.filter((p) => p.change.action === 'create');
  for (let i = 0; i < firsts.length; i += RUN_NOW_BATCH) {
    await Promise.all(
      firsts.slice(i, i + RUN_NOW_BATCH).map((p) => {
        const monitor = { id: createdIds.get(p.change.ref)!, type: p.desired!.type as CreateMonitorInput['type'] };
        return checkNow(deps, monitor, 'config applied');
      }),
    );
  }
  await afterMonitorsRemoved(deps, ctx, resolved);
  return { planId: plan.planId, changes: plan.changes, summary: plan.summary };
}

/** What every step of `write` works in: the caller's transaction, the deps and the caller. */
interface Writing {
  tx: Prisma.TransactionClient;
  deps: ConfigDeps;
  ctx: ServiceContext;
  /** ctx.workspace.id */
  ws: string;
}

/** A policy's id by its ref (null: none named), created ones included. */
type PolicyIdOf = (ref: string | null | undefined) => string | null;

/**
 * Every change of the plan, in the caller's transaction, in an order that each step relies on: schedules, then
 * policies (monitors name them), deletes next (they free slugs and refs), then monitors, then pages (they place the
 * monitors' components), the policies the plan deletes last (monitors let go of them first) and after them the
 * schedules it deletes (409 while a live policy still pages one), then the audit trail and events.
 */
async function write(
  tx: Prisma.TransactionClient,
  deps: ConfigDeps,
  ctx: ServiceContext,
  doc: ConfigDocument,
  plan: ConfigPlan,
) {
  const w: Writing = { tx, deps, ctx, ws: ctx.workspace.id };
  await writeSchedules(w, doc, plan);
  const policyId = await writePolicies(w, doc, plan);
  await deleteStatusPages(w, plan);
  const { resolved, rescheduleIds } = await deleteMonitors(w, plan);
  // dependsOn names monitor ids as given (not refs of this document): every new list judged together, as plan judged
  // them, now under the dependency lock that monitor writes and deletes take.
  const dependencyIssues = await dependsOnIssues(tx, w.ws, doc, plan.monitors, { lock: true });
  if (dependencyIssues.length) fail(dependencyIssues);
  // The secrets the monitors will name, held until the commit (a secret's delete waits, then sees them).
  await lockSecrets(tx, w.ws, [...new Set(plannedSecretRefs(plan.monitors).flatMap((m) => m.names))]);
  const created = await createMonitors(w, doc, plan, policyId);
  rescheduleIds.push(...[...created.values()].map((c) => c.id));
  rescheduleIds.push(...(await updateMonitors(w, plan, policyId)));
  await writeStatusPages(w, plan, componentsByRef(plan, created));
  // Monitors let go of a deleted policy by its foreign key; one that incidents pinned is archived instead.
  for (const p of plan.policies) if (p.change.action === 'delete') await deletePolicyInTx(tx, ctx, p.stored!.id);
  for (const p of plan.schedules) if (p.change.action === 'delete') await deleteScheduleInTx(tx, ctx, p.stored!.id);
  if (plan.accounting?.change.action === 'update')
    await writeAccountingPolicyInTx(tx, ctx, plan.accounting.desired as AccountingSettingsInput);
  await recordWrites(tx, ctx, [
    ...plan.schedules,
    ...plan.policies,
    ...plan.monitors,
    ...plan.statusPages,
    ...(plan.accounting ? [plan.accounting] : []),
  ]);
  // The event log (GET /events, webhooks) after the versions went up: monitor.deleted came with each removal.
  const createdIds = new Map([...created].map(([ref, c]) => [ref, c.id]));
  await recordMonitorEvents(tx, deps, ctx, 'monitor.created', [...createdIds.values()]);
  const updatedIds = plan.monitors.filter((p) => p.change.action === 'update').map((p) => p.stored!.id);
  await recordMonitorEvents(tx, deps, ctx, 'monitor.updated', updatedIds);
  return { plan, createdIds, rescheduleIds, resolved };
}

/** The schedules the plan creates or updates, with the fields the document gives (a new `layers` replaces them all). */
async function writeSchedules({ tx, ws }: Writing, doc: ConfigDocument, plan: ConfigPlan): Promise<void> {
  const desired = new Map(doc.schedules.map((s) => [s.ref, s.input]));
  for (const p of plan.schedules) {
    const input = desired.get(p.change.ref);
    if (!input) continue;
    if (p.change.action === 'create') p.change.id = (await createScheduleInTx(tx, ws, input, p.change.ref)).id;
    else if (p.change.action === 'update') {
      const changes = Object.fromEntries(p.changed.map((f) => [f, input[f as keyof typeof input] ?? null]));
      await updateScheduleInTx(tx, p.stored!.id, changes as UpdateScheduleInput);
    }
  }
}

/** The policies the plan creates or updates; answers each policy's id by its ref, for the monitors that name one. */
async function writePolicies({ tx, deps, ctx }: Writing, doc: ConfigDocument, plan: ConfigPlan): Promise<PolicyIdOf> {
  const desiredPolicies = new Map(doc.escalationPolicies.map((p) => [p.ref, p.input]));
  const policyByRef = new Map<string, string>();
  for (const p of plan.policies) if (p.stored) policyByRef.set(p.change.ref, p.stored.id);
  for (const p of plan.policies) {
    if (p.change.action === 'create') {
      // The previous default's change is in the plan (an update of its own), recorded by recordWrites.
      const id = await createPolicyInTx(tx, deps, ctx, desiredPolicies.get(p.change.ref)!, {
        ref: p.change.ref,
        previousDefault: 'planned',
      });
      policyByRef.set(p.change.ref, id);
      p.change.id = id;
    } else if (p.change.action === 'update') {
      const changes = Object.fromEntries(p.changed.map((f) => [f, p.desired![f]]));
      await updatePolicyInTx(tx, deps, ctx, p.stored!.id, changes as UpdateEscalationPolicyInput, 'planned');
    }
  }
  return (ref) => (ref ? policyByRef.get(ref)! : null);
}

/** The status pages the plan deletes (`prune`): first, so that their slugs are free for the pages it creates. */
async function deleteStatusPages({ tx, ws }: Writing, plan: ConfigPlan): Promise<void> {
  const deletedPages = plan.statusPages.filter((p) => p.change.action === 'delete').map((p) => p.stored!.id);
  if (deletedPages.length) await tx.statusPage.deleteMany({ where: { id: { in: deletedPages }, workspaceId: ws } });
}

/** The monitors the plan deletes (`prune`), as DELETE /monitors/{id} removes one: their open incidents resolved. */
async function deleteMonitors({ tx, ctx }: Writing, plan: ConfigPlan) {
  const resolved: ResolvedByDelete[] = [];
  const rescheduleIds: string[] = [];
  for (const p of plan.monitors.filter((m) => m.change.action === 'delete')) {
    resolved.push(...(await removeMonitorInTx(tx, ctx, p.stored!)));
    rescheduleIds.push(p.stored!.id);
  }
  return { resolved, rescheduleIds };
}

/**
 * The monitors the plan creates, each with its component, as POST /monitors inserts a group of them (insertMonitors:
 * one statement per shape of row); answers their ids by ref.
 */
async function createMonitors(
  { tx, deps, ctx, ws }: Writing,
  doc: ConfigDocument,
  plan: ConfigPlan,
  policyId: PolicyIdOf,
): Promise<Map<string, { id: string; componentId: string }>> {
  const created = new Map<string, { id: string; componentId: string }>();
  const creates = plan.monitors.filter((p) => p.change.action === 'create');
  if (creates.length === 0) return created;
  const inputByRef = new Map(doc.monitors.map((m) => [m.ref, m]));
  const rows = creates.map((p) => {
    const id = randomUUID();
    const componentId = randomUUID();
    created.set(p.change.ref, { id, componentId });
    p.change.id = id;
    const { input, escalationPolicy } = inputByRef.get(p.change.ref)!;
    return {
      ...monitorCreateData(deps.config, { workspaceId: ws, componentId, id }, input),
      ref: p.change.ref,
      escalationPolicyId: policyId(escalationPolicy),
      updatedAt: ctx.now,
    };
  });
  await insertMonitors(tx, rows, { from: ctx.now, to: ctx.now });
  return created;
}

/** The monitors the plan changes, field by field; answers those whose schedule changes. */
async function updateMonitors({ tx, deps, ws }: Writing, plan: ConfigPlan, policyId: PolicyIdOf): Promise<string[]> {
  const rescheduleIds: string[] = [];
  for (const p of plan.monitors.filter((m) => m.change.action === 'update')) {
    const stored = p.stored!;
    const desired = p.desired!;
    const changes: Record<string, unknown> = {};
    for (const f of p.changed) if (f !== 'metadata' && f !== 'escalationPolicy') changes[f] = desired[f];
    const data = monitorUpdateData(deps.config, stored, changes as Omit<UpdateMonitorInput, 'type' | 'metadata'>);
    if (p.changed.includes('metadata')) data.metadata = desired.metadata as Prisma.InputJsonValue;
    if (p.changed.includes('escalationPolicy')) {
      const id = policyId(desired.escalationPolicy as string | null);
      data.escalationPolicy = id ? { connect: { id } } : { disconnect: true };
    }
    await tx.monitor.update({ where: { id: stored.id, workspaceId: ws }, data });
    if (['intervalSeconds', 'schedule', 'regions'].some((f) => p.changed.includes(f))) rescheduleIds.push(stored.id);
  }
  return rescheduleIds;
}

/** Every monitor's component by the monitor's ref: those stored and those just created. */
function componentsByRef(plan: ConfigPlan, created: ReadonlyMap<string, { componentId: string }>): Map<string, string> {
  const componentByRef = new Map<string, string>();
  for (const p of plan.monitors) if (p.stored) componentByRef.set(p.change.ref, p.stored.componentId);
  for (const [ref, c] of created) componentByRef.set(ref, c.componentId);
  return componentByRef;
}

/** The status pages the plan creates or changes, each layout placing the monitors' components by their refs. */
async function writeStatusPages(
  { tx, ws }: Writing,
  plan: ConfigPlan,
  componentByRef: ReadonlyMap<string, string>,
): Promise<void> {
  for (const [i, p] of plan.statusPages.entries()) {
    const desired = p.desired;
    if (!desired || p.change.action === 'noop' || p.change.action === 'delete') continue;
    const layout = (desired.sections as Array<{ name: string; monitors: string[] }>).map((s) => ({
      name: s.name,
      componentIds: s.monitors.map((ref) => componentByRef.get(ref)!),
    })) satisfies LayoutInput;
    const fields = {
      name: desired.name as string,
      slug: desired.slug as string,
      isPublic: desired.isPublic as boolean,
      logoUrl: desired.logoUrl as string | null,
      faviconUrl: desired.faviconUrl as string | null,
      brandColor: desired.brandColor as string | null,
      websiteUrl: desired.websiteUrl as string | null,
    };
    let page: { id: string; workspaceId: string };
    if (p.change.action === 'create') {
      page = await tx.statusPage.create({
        data: { workspaceId: ws, ref: p.change.ref, ...fields },
        select: { id: true, workspaceId: true },
      });
      p.change.id = page.id;
    } else {
      page = { id: p.stored!.id, workspaceId: ws };
      if (p.changed.some((f) => f !== 'sections')) await tx.statusPage.update({ where: { id: page.id }, data: fields });
    }
    if (p.change.action === 'create' ? layout.length > 0 : p.changed.includes('sections'))
      await replaceLayout(tx, page, layout, `statusPages[${i}].sections`);
  }
}

const VERBS = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/**
 * One audit event per resource the apply wrote (services/audit/record-write.ts), with the plan's shown fields as its
 * changes (secrets redacted); an updated record's `version` goes up (no If-Match: the plan id is apply's condition).
 */
async function recordWrites(
  tx: Prisma.TransactionClient,
  ctx: ServiceContext,
  planned: ReadonlyArray<{ change: ConfigChange }>,
) {
  for (const { change } of planned) {
    if (change.action === 'noop' || change.id === null) continue;
    if (change.action === 'update') await claimVersion(tx, ctx, change.resourceType, change.id);
    await recordAuditEvent(tx, ctx, {
      resourceType: change.resourceType,
      resourceId: change.id,
      action: VERBS[change.action],
      changes: change.fields,
    });
  }
}
