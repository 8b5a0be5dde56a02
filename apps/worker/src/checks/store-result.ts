import { insertResultsWithRollups, type PrismaClient } from '@statusvane/shared';
import { evaluateFlap, type FlapState, type RegionFlapState } from '../flap/evaluate.js';
import type { ProbeResult } from '../probes/types.js';
import { GroupWriter } from './result-writer.js';

export interface StoredCheck {
  /** False when this (monitor, region, slot) was already stored: a job that ran twice changes nothing. */
  stored: boolean;
  /**
   * Whether the result counted toward the thresholds: false when it was not stored, or was taken less than
   * min(15 s, intervalSeconds) after the previous counted result of its region (stored and shown, moves no counter).
   */
  counted: boolean;
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
  intervalSeconds: number;
  /** The regions that check the monitor (monitorRegions): a majority of them opens and resolves its incidents. */
  regions: readonly string[];
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
 * about the same moment (group commit, result-writer.ts): resolves once that transaction committed. Same guarantees
 * as storing it alone.
 */
export function storeCheckResult(prisma: PrismaClient, input: StoreInput): Promise<StoredCheck> {
  return writerFor(prisma).write(input);
}

/** Stores one result and applies the flap logic in a transaction of its own (storeCheckResults of one). */
export async function storeCheckResultAlone(prisma: PrismaClient, input: StoreInput): Promise<StoredCheck> {
  const [stored] = await storeCheckResults(prisma, [input]);
  return stored!;
}

const resultKey = (monitorId: string, region: string, slot: Date) => `${monitorId}|${region}|${slot.getTime()}`;

/** One group writer per client instance (each test's PrismaClient, each worker's): groups never mix databases. */
const writers = new WeakMap<PrismaClient, GroupWriter<StoreInput, StoredCheck>>();
function writerFor(prisma: PrismaClient): GroupWriter<StoreInput, StoredCheck> {
  let w = writers.get(prisma);
  if (!w) {
    w = new GroupWriter({
      group: (inputs) => storeCheckResults(prisma, inputs),
      one: (input) => storeCheckResultAlone(prisma, input),
    });
    writers.set(prisma, w);
  }
  return w;
}

/**
 * Stores many results in one transaction and applies the flap logic to them. The result row is unique per
 * (monitor, region, slot), so a job processed twice (or a result twice in the group) stores once. The monitor rows
 * are locked first, in id order (so concurrent groups never deadlock), before the flap state is read: results for one
 * monitor, from any worker and any region, then apply one at a time (inserting a result takes a KEY SHARE lock on its
 * monitor through the foreign key, which NO KEY UPDATE does not conflict with, so API writes are not blocked). Each
 * monitor's results apply in slot order. The unique `openMonitorId` means at most one open incident per monitor even
 * if two transactions decided to open one.
 */
export async function storeCheckResults(prisma: PrismaClient, inputs: readonly StoreInput[]): Promise<StoredCheck[]> {
  const out: StoredCheck[] = inputs.map(() => ({ stored: false, counted: false, opened: null, resolved: null }));
  return prisma.$transaction(async (tx) => {
    const ids = [...new Set(inputs.map((i) => i.monitor.id))].sort();
    const locked = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM monitors WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
    const present = new Set(locked.map((r) => r.id));

    const seen = new Set<string>();
    const candidates = inputs.flatMap((input, i) => {
      const key = resultKey(input.monitor.id, input.region, input.slot);
      if (!present.has(input.monitor.id) || seen.has(key)) return [];
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
          certificate: result.certificate ?? null,
          dnsAnswers: result.dnsAnswers ?? null,
        };
      }),
    );
    const createdKeys = new Set(created.map((c) => resultKey(c.monitorId, c.region, c.slot)));
    const stored = candidates.filter((i) =>
      createdKeys.has(resultKey(inputs[i]!.monitor.id, inputs[i]!.region, inputs[i]!.slot)),
    );
    if (stored.length === 0) return out;

    // Read after the locks are held (a statement of its own, so it sees what the previous holder committed).
    const storedIds = [...new Set(stored.map((i) => inputs[i]!.monitor.id))];
    const flap = await loadFlapStates(tx, storedIds);
    const openIncident = new Map([...flap].flatMap(([id, f]) => (f.openIncidentId ? [[id, f.openIncidentId]] : [])));
    const changed = new Map<string, { monitorId: string; region: string; state: RegionFlapState }>();
    const last = new Map<string, { status: ProbeResult['outcome']; checkedAt: Date }>();
    // The latest certificate seen per monitor (a result without one leaves the stored one in place).
    const certificates = new Map<string, object>();
    stored.sort((a, b) => inputs[a]!.slot.getTime() - inputs[b]!.slot.getTime());
    for (const i of stored) {
      const { monitor, region, result, checkedAt, inMaintenance } = inputs[i]!;
      const decision = evaluateFlap(
        flap.get(monitor.id)!.state,
        { region, checkedAt, outcome: result.outcome, inMaintenance },
        monitor,
      );
      flap.get(monitor.id)!.state = decision.state;
      if (decision.counted) {
        changed.set(`${monitor.id}|${region}`, {
          monitorId: monitor.id,
          region,
          state: decision.state.regions.get(region)!,
        });
      }
      last.set(monitor.id, { status: result.outcome, checkedAt });
      if (result.certificate) certificates.set(monitor.id, result.certificate);
      out[i] = { stored: true, counted: decision.counted, opened: null, resolved: null };
      for (const event of decision.events) {
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

    // The region states that moved and each monitor's latest status, in one statement.
    const regions = [...changed.values()];
    const col = <T>(f: (c: (typeof regions)[number]) => T) => regions.map(f);
    const touched = [...last.keys()];
    await tx.$executeRaw`
      WITH states AS (
        INSERT INTO monitor_region_states AS s ("monitorId", region, "consecutiveFailures", "consecutivePasses", failing, "lastCountedAt")
        SELECT * FROM unnest(${col((c) => c.monitorId)}::uuid[], ${col((c) => c.region)}::text[],
          ${col((c) => c.state.consecutiveFailures)}::int[], ${col((c) => c.state.consecutivePasses)}::int[],
          ${col((c) => c.state.failing)}::boolean[], ${col((c) => c.state.lastCountedAt?.toISOString() ?? null)}::timestamptz[])
        ON CONFLICT ("monitorId", region) DO UPDATE SET "consecutiveFailures" = EXCLUDED."consecutiveFailures",
          "consecutivePasses" = EXCLUDED."consecutivePasses", failing = EXCLUDED.failing, "lastCountedAt" = EXCLUDED."lastCountedAt"
      )
      UPDATE monitors AS m SET status = v.s::"MonitorStatus", "lastCheckedAt" = v.at, "updatedAt" = ${new Date().toISOString()}::timestamptz,
        certificate = coalesce(v.cert::jsonb, m.certificate)
      FROM unnest(${touched}::uuid[], ${touched.map((id) => last.get(id)!.status)}::text[],
        ${touched.map((id) => last.get(id)!.checkedAt.toISOString())}::timestamptz[],
        ${touched.map((id) => (certificates.has(id) ? JSON.stringify(certificates.get(id)) : null))}::text[]) AS v(id, s, at, cert)
      WHERE m.id = v.id`;
    return out;
  });
}

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** Each monitor's flap state (its region rows and open incident), read in one statement. */
async function loadFlapStates(
  tx: Tx,
  monitorIds: string[],
): Promise<Map<string, { state: FlapState; openIncidentId: string | null }>> {
  const rows = await tx.$queryRaw<
    Array<{
      id: string;
      openIncidentId: string | null;
      regions: Array<Omit<RegionFlapState, 'lastCountedAt'> & { region: string; lastCountedAt: string | null }> | null;
    }>
  >`
    SELECT m.id, i.id AS "openIncidentId",
      (SELECT json_agg(json_build_object('region', s.region, 'consecutiveFailures', s."consecutiveFailures",
        'consecutivePasses', s."consecutivePasses", 'failing', s.failing, 'lastCountedAt', s."lastCountedAt"))
       FROM monitor_region_states s WHERE s."monitorId" = m.id) AS regions
    FROM monitors m LEFT JOIN incidents i ON i."openMonitorId" = m.id
    WHERE m.id = ANY(${monitorIds}::uuid[])`;
  return new Map(
    rows.map((r) => [
      r.id,
      {
        openIncidentId: r.openIncidentId,
        state: {
          incidentOpen: r.openIncidentId !== null,
          regions: new Map(
            (r.regions ?? []).map(({ region, lastCountedAt, ...counters }) => [
              region,
              { ...counters, lastCountedAt: lastCountedAt === null ? null : new Date(lastCountedAt) },
            ]),
          ),
        },
      },
    ]),
  );
}
