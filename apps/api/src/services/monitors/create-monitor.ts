import { randomUUID } from 'node:crypto';
import {
  createGroupCommit,
  hotTransaction,
  maintenanceCoverage,
  type CheckScheduler,
  type Config,
  type CreateMonitorInput,
  type Logger,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import { writeLastOfEach, type ServiceContext } from '../context.js';
import { changesBetween } from '../audit/record-write.js';
import { monitorSettings, toMonitorRecord, type MonitorRecord, type MonitorRow } from './monitor-record.js';
import { checkDependencies } from './monitor-dependencies.js';
import { monitorCreateData } from './monitor-data.js';
import { insertMonitors } from './monitor-insert.js';
import { checkNow, followSchedule } from './monitor-schedule.js';
import { lockSecrets } from './monitor-secrets.js';

export interface MonitorServiceDeps {
  prisma: PrismaClient;
  config: Config;
  scheduler: CheckScheduler;
  guard: SsrfGuard;
  logger: Logger;
}

type Create = { ctx: ServiceContext; input: CreateMonitorInput };
type Created = { record: MonitorRecord; created: MonitorRow };

/** The most creates of one transaction, and the most such transactions of an API process at once. */
const GROUP = { maxItems: 32, maxInFlight: 2 };
const groups = new WeakMap<MonitorServiceDeps, (create: Create) => Promise<Created>>();

/**
 * Creates a monitor and its public component in one transaction, and its schedulers before that transaction
 * commits: if Redis refuses, nothing is written (a commit failure after scheduling leaves only a scheduler for a
 * missing monitor, which workers skip and the reconciler removes). Then queues the first check at once. `input` has
 * passed createMonitorChecks (monitor-validation.ts); `dependsOn` is judged again in the write.
 *
 * Under group commit (docs/adr/0022-group-commit-of-creates.md): the creates that arrive while the process's create
 * transactions are busy share the next one (createMonitors), and each runs again alone should that one fail.
 */
export async function createMonitor(deps: MonitorServiceDeps, { ctx, input }: Create): Promise<MonitorRecord> {
  assertCan(ctx.role, 'monitors:write');
  let group = groups.get(deps);
  if (!group) groups.set(deps, (group = createGroupCommit((creates) => createMonitors(deps, creates), GROUP)));
  const { record, created } = await group({ ctx, input });
  // Both after the commit, side by side (one Redis round trip). Should Redis fail right here, the monitor is scheduled
  // (in the transaction) and the reconciler has it in a round. The immediate first check is queued only after the
  // commit: queued earlier, a fast worker could read the monitor before it exists and skip it; should Redis fail, the
  // first scheduled slot still comes.
  await Promise.all([followSchedule(deps, created, 'monitor created'), checkNow(deps, record, 'monitor created')]);
  return record;
}

/**
 * Several creates (of any workspaces) in one hot transaction (docs/adr/0021-hot-statements-on-the-pool.md), in as few
 * statements as their number allows: the dependency and secret checks of each (none without `dependsOn` or secret
 * references), one insert of all the monitors and components per shape (insertMonitors), one write of every stored
 * answer, event and audit event (writeLastOfEach), then every scheduler in one Redis round trip.
 */
async function createMonitors(deps: MonitorServiceDeps, creates: readonly Create[]): Promise<Created[]> {
  return hotTransaction(deps.prisma, async (tx) => {
    const rows = [];
    for (const { ctx, input: m } of creates) {
      await checkDependencies(tx, { workspaceId: ctx.workspace.id, monitorId: null, dependsOn: m.dependsOn ?? [] });
      const data = monitorCreateData(deps.config, { workspaceId: ctx.workspace.id, componentId: randomUUID() }, m);
      await lockSecrets(tx, ctx.workspace.id, (data.secretRefs ?? []) as string[]);
      rows.push(data);
    }
    // The records are complete before the commit, so that `ctx.inTransaction` can store them: their maintenance state
    // comes with the insert (only a whole-workspace window can cover a component created in the same statement), read
    // over the creates' clocks and judged at each one's.
    const clocks = creates.map(({ ctx }) => ctx.now.getTime());
    const during = { from: new Date(Math.min(...clocks)), to: new Date(Math.max(...clocks)) };
    const inserted = await insertMonitors(tx, rows, during);
    const out = inserted.map(({ row: created, workspaceWindows }, i): Created & { ctx: ServiceContext } => {
      const { ctx } = creates[i]!;
      const record = toMonitorRecord(created, {
        publicBaseUrl: deps.config.publicBaseUrl,
        checkRegions: deps.config.checkRegions,
        maintenanceUntil:
          maintenanceCoverage(workspaceWindows, [created.componentId], ctx.now).get(created.componentId) ?? null,
        now: ctx.now,
      });
      return { ctx, record, created };
    });
    // The events, the audit events and the stored answers in one round trip. Before Redis: a hook that refuses (an
    // Idempotency-Key taken over by a retry) leaves no scheduler behind.
    await writeLastOfEach(
      tx,
      out.map(({ ctx, record, created }) => ({
        ctx,
        result: record,
        event: {
          workspaceId: ctx.workspace.id,
          type: 'monitor.created',
          subject: `monitors/${created.id}`,
          data: { monitor: record },
        },
        audit: {
          resourceType: 'monitor',
          resourceId: created.id,
          action: 'created',
          changes: changesBetween(null, monitorSettings(created, deps.config)),
        },
      })),
    );
    await Promise.all(out.map(({ created }) => deps.scheduler.schedule(created)));
    return out;
  });
}
