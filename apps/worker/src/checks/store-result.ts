import { addToRollups, type PrismaClient } from '@statusvane/shared';
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

/**
 * Stores one result and applies the flap logic in one transaction. The result row is unique per
 * (monitor, region, slot), so a job processed twice stores once; the monitor row is locked so results from
 * concurrent workers (or regions) update the counters one at a time; and the unique `openMonitorId` means at most
 * one open incident per monitor even if two transactions decided to open one.
 */
export async function storeCheckResult(
  prisma: PrismaClient,
  input: { monitor: MonitorForStore; region: string; slot: Date; checkedAt: Date; result: ProbeResult; inMaintenance: boolean },
): Promise<StoredCheck> {
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
    await addToRollups(tx, { monitorId: monitor.id, region: input.region, checkedAt: input.checkedAt, outcome: result.outcome, responseMs: result.responseMs, ...result.phases });

    const open = await tx.incident.findUnique({ where: { openMonitorId: monitor.id }, select: { id: true } });

    const { state, events } = evaluateFlap(
      { consecutiveFailures: locked.consecutiveFailures, consecutivePasses: locked.consecutivePasses, incidentOpen: open !== null },
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
