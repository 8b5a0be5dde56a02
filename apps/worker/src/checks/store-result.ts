import { addToRollups, insertResultsWithRollups, padToPowerOfTwo, type PrismaClient } from '@statusvane/shared';
import { evaluateFlap } from '../flap/evaluate.js';
import type { ProbeResult } from '../probes/types.js';

export interface StoredCheck {
  /** False when this (monitor, region, slot) was already stored: a job that ran twice changes nothing. */
  stored: boolean;
  opened: string | null;
  resolved: string | null;
}

interface MonitorForStore {
  id: string;
  workspaceId: string;
  name: string;
  metadata: unknown;
  openThreshold: number;
  resolveThreshold: number;
}

export interface StoreInput {
  monitor: MonitorForStore;
  region: string;
  slot: Date;
  checkedAt: Date;
  result: ProbeResult;
  inMaintenance: boolean;
}

/**
 * Stores one result and applies the flap logic, in one transaction shared with the other results that are ready at
 * the same moment (see ResultWriter): resolves once that transaction committed. Same guarantees as storing it alone.
 */
export function storeCheckResult(prisma: PrismaClient, input: StoreInput): Promise<StoredCheck> {
  return writerFor(prisma).store(input);
}

/**
 * Stores one result and applies the flap logic in one transaction. The result row is unique per
 * (monitor, region, slot), so a job processed twice stores once; the monitor row is locked so results from
 * concurrent workers (or regions) update the counters one at a time; and the unique `openMonitorId` means at most
 * one open incident per monitor even if two transactions decided to open one.
 */
export async function storeCheckResultAlone(prisma: PrismaClient, input: StoreInput): Promise<StoredCheck> {
  const { monitor, result } = input;
  return prisma.$transaction(async (tx) => {
    // Lock the monitor row first, before anything else in the transaction: results for one monitor then apply
    // one at a time, in a single lock order (inserting the result takes a KEY SHARE lock on this row through its
    // foreign key, which NO KEY UPDATE does not conflict with, so API writes are not blocked).
    const [locked] = await tx.$queryRaw<Array<{ consecutiveFailures: number; consecutivePasses: number }>>`
      SELECT "consecutiveFailures", "consecutivePasses" FROM monitors WHERE id = ${monitor.id}::uuid FOR NO KEY UPDATE`;
    if (!locked) return { stored: false, opened: null, resolved: null };
    const { count } = await tx.checkResult.createMany({
      data: [
        {
          monitorId: monitor.id,
          region: input.region,
          slot: input.slot,
          checkedAt: input.checkedAt,
          outcome: result.outcome,
          responseMs: result.responseMs,
          statusCode: result.statusCode,
          reason: result.reason,
          ...result.phases,
        },
      ],
      skipDuplicates: true,
    });
    if (count === 0) return { stored: false, opened: null, resolved: null };
    await addToRollups(tx, {
      monitorId: monitor.id,
      region: input.region,
      checkedAt: input.checkedAt,
      outcome: result.outcome,
      responseMs: result.responseMs,
      ...result.phases,
    });

    const open = await tx.incident.findUnique({ where: { openMonitorId: monitor.id }, select: { id: true } });

    const { state, events } = evaluateFlap(
      {
        consecutiveFailures: locked.consecutiveFailures,
        consecutivePasses: locked.consecutivePasses,
        incidentOpen: open !== null,
      },
      { outcome: result.outcome, inMaintenance: input.inMaintenance },
      { openThreshold: monitor.openThreshold, resolveThreshold: monitor.resolveThreshold },
    );
    await tx.monitor.update({
      where: { id: monitor.id },
      data: {
        consecutiveFailures: state.consecutiveFailures,
        consecutivePasses: state.consecutivePasses,
        status: result.outcome,
        lastCheckedAt: input.checkedAt,
      },
    });

    let opened: string | null = null;
    let resolved: string | null = null;
    for (const event of events) {
      if (event.type === 'open' && !open) {
        const incident = await tx.incident.create({
          data: {
            workspaceId: monitor.workspaceId,
            monitorId: monitor.id,
            openMonitorId: monitor.id,
            title: `${monitor.name} is down`,
            status: 'open',
            impact: 'major',
            source: 'monitor',
            metadata: (monitor.metadata ?? {}) as object,
            startedAt: input.checkedAt,
          },
          select: { id: true },
        });
        opened = incident.id;
      } else if (event.type === 'resolve' && open) {
        await tx.incident.update({
          where: { id: open.id },
          data: { status: 'resolved', resolvedAt: input.checkedAt, openMonitorId: null },
        });
        resolved = open.id;
      }
    }
    return { stored: true, opened, resolved };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Group commit: the results of concurrent checks stored in one transaction.
// ---------------------------------------------------------------------------------------------------------------

/**
 * Results per transaction at most, and group transactions in flight per worker: one, because results arriving while
 * it commits make the next group bigger, and a bigger group costs less per result (docs/benchmarks.md).
 */
const MAX_BATCH = 200;
const MAX_IN_FLIGHT = 1;

const resultKey = (monitorId: string, region: string, slot: Date) => `${monitorId}|${region}|${slot.getTime()}`;

/**
 * Collects the results that are ready in one event-loop turn, and those that arrive while MAX_IN_FLIGHT
 * transactions are running, and stores each group in one transaction: six round trips for the group instead of
 * eight per result. This is what lets one worker keep up with its probes (docs/benchmarks.md). Each caller is
 * answered when its group committed. If a group fails, each of its results is stored alone, so one bad result (or a
 * deadlock) costs only itself a retry.
 */
class ResultWriter {
  private queue: Array<{ input: StoreInput; resolve: (s: StoredCheck) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly prisma: PrismaClient) {}

  store(input: StoreInput): Promise<StoredCheck> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < MAX_IN_FLIGHT) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: ResultWriter['queue']): Promise<void> {
    let stored: StoredCheck[];
    try {
      stored =
        batch.length === 1
          ? [await storeCheckResultAlone(this.prisma, batch[0]!.input)]
          : await storeCheckResults(
              this.prisma,
              batch.map((b) => b.input),
            );
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      await Promise.all(batch.map((b) => storeCheckResultAlone(this.prisma, b.input).then(b.resolve, b.reject)));
      return;
    }
    batch.forEach((b, i) => b.resolve(stored[i]!));
  }
}

const writers = new WeakMap<PrismaClient, ResultWriter>();
function writerFor(prisma: PrismaClient): ResultWriter {
  let w = writers.get(prisma);
  if (!w) writers.set(prisma, (w = new ResultWriter(prisma)));
  return w;
}

/**
 * Stores many results in one transaction, with exactly the guarantees of storing each alone: the monitor rows are
 * locked first, in id order (so concurrent groups never deadlock), a (monitor, region, slot) already stored (or twice
 * in the group) stores once, and each monitor's results apply to its flap state one at a time, in slot order.
 */
export async function storeCheckResults(prisma: PrismaClient, inputs: readonly StoreInput[]): Promise<StoredCheck[]> {
  const out: StoredCheck[] = inputs.map(() => ({ stored: false, opened: null, resolved: null }));
  return prisma.$transaction(async (tx) => {
    const ids = [...new Set(inputs.map((i) => i.monitor.id))].sort();
    const locked = await tx.$queryRaw<Array<{ id: string; consecutiveFailures: number; consecutivePasses: number }>>`
      SELECT id, "consecutiveFailures", "consecutivePasses" FROM monitors WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
    const counters = new Map(
      locked.map((r) => [r.id, { failures: r.consecutiveFailures, passes: r.consecutivePasses }]),
    );

    const seen = new Set<string>();
    const candidates = inputs.flatMap((input, i) => {
      const key = resultKey(input.monitor.id, input.region, input.slot);
      if (!counters.has(input.monitor.id) || seen.has(key)) return [];
      seen.add(key);
      return [i];
    });
    if (candidates.length === 0) return out;
    // One statement for the rows and their rollups (Prisma's createManyAndReturn costs milliseconds of CPU a call).
    const created = await insertResultsWithRollups(
      tx,
      candidates.map((i) => {
        const { monitor, region, slot, checkedAt, result } = inputs[i]!;
        return {
          monitorId: monitor.id,
          region,
          slot,
          checkedAt,
          outcome: result.outcome,
          responseMs: result.responseMs,
          statusCode: result.statusCode,
          reason: result.reason,
          ...result.phases,
        };
      }),
    );
    const createdKeys = new Set(created.map((c) => resultKey(c.monitorId, c.region, c.slot)));
    const stored = candidates.filter((i) =>
      createdKeys.has(resultKey(inputs[i]!.monitor.id, inputs[i]!.region, inputs[i]!.slot)),
    );
    if (stored.length === 0) return out;

    const storedIds = [...new Set(stored.map((i) => inputs[i]!.monitor.id))];
    const open = await tx.incident.findMany({
      where: { openMonitorId: { in: padToPowerOfTwo(storedIds) } },
      select: { id: true, openMonitorId: true },
    });
    const openIncident = new Map(open.map((o) => [o.openMonitorId!, o.id]));
    const last = new Map<string, { status: ProbeResult['outcome']; checkedAt: Date }>();
    stored.sort((a, b) => inputs[a]!.slot.getTime() - inputs[b]!.slot.getTime());
    for (const i of stored) {
      const { monitor, result, checkedAt, inMaintenance } = inputs[i]!;
      const c = counters.get(monitor.id)!;
      const { state, events } = evaluateFlap(
        { consecutiveFailures: c.failures, consecutivePasses: c.passes, incidentOpen: openIncident.has(monitor.id) },
        { outcome: result.outcome, inMaintenance },
        { openThreshold: monitor.openThreshold, resolveThreshold: monitor.resolveThreshold },
      );
      c.failures = state.consecutiveFailures;
      c.passes = state.consecutivePasses;
      last.set(monitor.id, { status: result.outcome, checkedAt });
      out[i]!.stored = true;
      for (const event of events) {
        const openId = openIncident.get(monitor.id);
        if (event.type === 'open' && !openId) {
          const incident = await tx.incident.create({
            data: {
              workspaceId: monitor.workspaceId,
              monitorId: monitor.id,
              openMonitorId: monitor.id,
              title: `${monitor.name} is down`,
              status: 'open',
              impact: 'major',
              source: 'monitor',
              metadata: (monitor.metadata ?? {}) as object,
              startedAt: checkedAt,
            },
            select: { id: true },
          });
          openIncident.set(monitor.id, incident.id);
          out[i]!.opened = incident.id;
        } else if (event.type === 'resolve' && openId) {
          await tx.incident.update({
            where: { id: openId },
            data: { status: 'resolved', resolvedAt: checkedAt, openMonitorId: null },
          });
          openIncident.delete(monitor.id);
          out[i]!.resolved = openId;
        }
      }
    }

    const touched = [...last.keys()];
    await tx.$executeRaw`
      UPDATE monitors AS m SET "consecutiveFailures" = v.f, "consecutivePasses" = v.p, status = v.s::"MonitorStatus",
        "lastCheckedAt" = v.at, "updatedAt" = ${new Date().toISOString()}::timestamptz
      FROM unnest(${touched}::uuid[], ${touched.map((id) => counters.get(id)!.failures)}::int[], ${touched.map((id) => counters.get(id)!.passes)}::int[],
        ${touched.map((id) => last.get(id)!.status)}::text[], ${touched.map((id) => last.get(id)!.checkedAt.toISOString())}::timestamptz[]) AS v(id, f, p, s, at)
      WHERE m.id = v.id`;
    return out;
  });
}
