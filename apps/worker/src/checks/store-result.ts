import {
  type MonitorKind,
  insertResultsWithRollups,
  MAX_RESULT_LAG_MS,
  monitorQuorum,
  packStepResults,
  windowInProgress,
  coveringWindows,
  coveringWindowsJson,
  type CoveringWindowJson,
  hotQuery,
  hotStatement,
  hotTransaction,
  type HotTransaction,
  Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { evaluateFlap, regionStateOf, type FlapState, type RegionFlapState } from '../flap/evaluate.js';
import type { ProbeResult } from '../probes/types.js';
import { openParentIncidentOf } from '../open-parent-incident.js';
import { bySlot, GroupWriter } from './result-writer.js';

export interface StoredCheck {
  /** False when this (monitor, region, slot) was already stored: a job that ran twice changes nothing. */
  stored: boolean;
  /**
   * Whether the result counted toward the thresholds: false when it was not stored, or was taken less than
   * confirmationGapMs after the previous counted result of its region (stored and shown, moves no counter).
   */
  counted: boolean;
  opened: string | null;
  resolved: string | null;
  /**
   * The re-check this result asked for (fast confirmation), when its region still waits for it after this
   * transaction: the caller queues it. Also given when the result was already stored (the region's pending re-check),
   * so that a job re-run after a crash arms what the first run could not. Null for a stored result that asked for
   * none: a re-check another result asked for is queued already.
   */
  confirmSlot: Date | null;
}

interface MonitorForStore {
  id: string;
  workspaceId: string;
  name: string;
  type: MonitorKind;
  metadata: unknown;
  openThreshold: number;
  resolveThreshold: number;
  intervalSeconds: number;
  confirmAfterSeconds: number;
  /** The regions that check the monitor (monitorRegions). */
  regions: readonly string[];
  /** The monitor's `quorum` as stored (null: a majority): monitorQuorum of its regions failing open its incident. */
  quorum: number | null;
}

export interface StoreInput {
  monitor: MonitorForStore;
  region: string;
  slot: Date;
  checkedAt: Date;
  result: ProbeResult;
}

/**
 * The group writer of check results (group commit, result-writer.ts): `write` stores one result and applies the flap
 * logic, in one transaction shared with the other results that are ready at about the same moment, and resolves once
 * that transaction committed; same guarantees as storing it alone. One per database client (groups never mix
 * databases): the worker runtime makes it and hands it to runCheck.
 */
export type ResultWriter = Pick<GroupWriter<StoreInput, StoredCheck>, 'write'>;

export function createResultWriter(prisma: PrismaClient): ResultWriter {
  return new GroupWriter({
    group: (inputs: StoreInput[]) => storeCheckResults(prisma, inputs),
    one: (input: StoreInput) => storeCheckResultAlone(prisma, input),
    order: bySlot,
  });
}

/** Stores one result and applies the flap logic in a transaction of its own (storeCheckResults of one). */
export async function storeCheckResultAlone(prisma: PrismaClient, input: StoreInput): Promise<StoredCheck> {
  const [stored] = await storeCheckResults(prisma, [input]);
  return stored!;
}

const resultKey = (monitorId: string, region: string, slot: Date) => `${monitorId}|${region}|${slot.getTime()}`;

/**
 * Stores many results in one transaction and applies the flap logic to them. The result row is unique per
 * (monitor, region, slot), so a job processed twice (or a result twice in the group) stores once. The monitor rows
 * are locked first, in id order (so concurrent groups never deadlock), before the flap state is read: results for one
 * monitor, from any worker and any region, then apply one at a time (inserting a result takes a KEY SHARE lock on its
 * monitor through the foreign key, which NO KEY UPDATE does not conflict with, so API writes are not blocked). Each
 * monitor's results apply in slot order. The unique `openMonitorId` means at most one open incident per monitor even
 * if two transactions decided to open one. Statements: the lock, the insert, the flap read, one per incident opened
 * (three) or resolved (one), and the state write.
 */
export async function storeCheckResults(prisma: PrismaClient, inputs: readonly StoreInput[]): Promise<StoredCheck[]> {
  const out: StoredCheck[] = inputs.map(() => ({
    stored: false,
    counted: false,
    opened: null,
    resolved: null,
    confirmSlot: null,
  }));
  return hotTransaction(prisma, async (tx) => {
    // The results of monitors still there, each (monitor, region, slot) once.
    const candidates = await lockMonitors(tx, inputs);
    if (candidates.length === 0) return out;
    // The ones whose row is new: the others were stored before (a job that ran twice).
    const stored = await insertResults(tx, inputs, candidates);
    // Read after the locks are held (a statement of its own, so it sees what the previous holder committed). The
    // monitors of results already stored too: their re-check is armed again (a job re-run after a crash).
    const times = candidates.map((i) => inputs[i]!.checkedAt.getTime());
    const flap = await loadFlapStates(
      tx,
      [...new Set(candidates.map((i) => inputs[i]!.monitor.id))],
      new Date(Math.min(...times)),
      new Date(Math.max(...times)),
    );
    // The flap logic, result by result in slot order: counters, incidents opened and resolved.
    const changes = stored.length === 0 ? null : await applyResults(tx, inputs, stored, flap, out);
    // A stored result gets back only the re-check it asked for (still pending); a duplicate, its region's pending one.
    for (const i of candidates) {
      const slot = flap.get(inputs[i]!.monitor.id)!.state.regions.get(inputs[i]!.region)?.confirmSlot ?? null;
      if (!out[i]!.stored || slot?.getTime() === changes?.askedFor.get(i)) out[i]!.confirmSlot = slot;
    }
    // The region states that moved and each monitor's latest status.
    if (changes) await saveStates(tx, changes);
    return out;
  });
}

const LOCK_MONITORS = hotStatement(`SELECT id FROM monitors WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`);

/**
 * Locks the group's monitors (FOR NO KEY UPDATE, in id order) and answers the indexes of the results to store: those
 * of monitors that still exist, each (monitor, region, slot) once.
 */
async function lockMonitors(tx: HotTransaction, inputs: readonly StoreInput[]): Promise<number[]> {
  const ids = [...new Set(inputs.map((i) => i.monitor.id))].sort();
  const locked = await hotQuery<{ id: string }>(tx, LOCK_MONITORS, [ids]);
  const present = new Set(locked.map((r) => r.id));
  const seen = new Set<string>();
  return inputs.flatMap((input, i) => {
    const key = resultKey(input.monitor.id, input.region, input.slot);
    if (!present.has(input.monitor.id) || seen.has(key)) return [];
    seen.add(key);
    return [i];
  });
}

/**
 * Inserts the candidates' rows and their rollups in one statement (Prisma's createManyAndReturn costs milliseconds of
 * CPU a call); answers the indexes of those actually inserted, in slot order (the order the flap logic applies them).
 */
async function insertResults(
  tx: HotTransaction,
  inputs: readonly StoreInput[],
  candidates: readonly number[],
): Promise<number[]> {
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
        dnsMs: result.phases.dnsMs,
        connectMs: result.phases.connectMs,
        tlsMs: result.phases.tlsMs,
        waitingMs: result.phases.waitingMs,
        certificate: result.certificate ?? null,
        dnsAnswers: result.dnsAnswers ?? null,
        address: result.address ?? null,
        steps: result.steps ? packStepResults(result.steps) : null,
        traceId: result.traceId ?? null,
      };
    }),
  );
  const createdKeys = new Set(created.map((c) => resultKey(c.monitorId, c.region, c.slot)));
  return candidates
    .filter((i) => createdKeys.has(resultKey(inputs[i]!.monitor.id, inputs[i]!.region, inputs[i]!.slot)))
    .sort((a, b) => inputs[a]!.slot.getTime() - inputs[b]!.slot.getTime());
}

type FlapStates = Awaited<ReturnType<typeof loadFlapStates>>;

/** What a group's stored results changed, written at its end in one statement (saveStates). */
interface GroupChanges {
  /** Every stored result's region: its latest outcome, and its counters when counted or the re-check cleared. */
  regions: Map<string, { monitorId: string; region: string; state: RegionFlapState; outcome: ProbeResult['outcome'] }>;
  /** Each monitor's status after the group and when it was last checked. */
  monitors: Map<string, { status: ProbeResult['outcome']; checkedAt: Date }>;
  /** The latest certificate seen per monitor (a result without one leaves the stored one in place). */
  certificates: Map<string, object>;
  /** The re-check each stored result asked for (the time of its slot), by the result's index. */
  askedFor: Map<number, number>;
}

/**
 * Applies the flap logic to the stored results, in slot order, on `flap` (updated in place), opening and resolving
 * incidents as it decides; fills in `out` for each.
 */
async function applyResults(
  tx: HotTransaction,
  inputs: readonly StoreInput[],
  stored: readonly number[],
  flap: FlapStates,
  out: StoredCheck[],
): Promise<GroupChanges> {
  const openIncident = new Map([...flap].flatMap(([id, f]) => (f.openIncidentId ? [[id, f.openIncidentId]] : [])));
  const changes: GroupChanges = {
    regions: new Map(),
    monitors: new Map(),
    certificates: new Map(),
    askedFor: new Map(),
  };
  for (const i of stored) {
    const { monitor, region, slot, result, checkedAt } = inputs[i]!;
    const f = flap.get(monitor.id)!;
    const before = f.state;
    const quorum = monitorQuorum(monitor.regions.length, monitor.quorum);
    const decision = evaluateFlap(
      before,
      {
        region,
        slot,
        checkedAt,
        outcome: result.outcome,
        inMaintenance: f.maintenance.some((w) => windowInProgress(w, checkedAt)),
      },
      // Field by field: a spread of the monitor (the check's whole row as Prisma read it) costs microseconds a result.
      {
        openThreshold: monitor.openThreshold,
        resolveThreshold: monitor.resolveThreshold,
        intervalSeconds: monitor.intervalSeconds,
        confirmAfterSeconds: monitor.confirmAfterSeconds,
        regions: monitor.regions,
        quorum,
        // A heartbeat is judged from pings, a domain from an answer cached for hours: checking again soon tells nothing.
        recheck: monitor.type !== 'heartbeat' && monitor.type !== 'domain',
      },
    );
    f.state = decision.state;
    const asked = decision.state.regions.get(region)?.confirmSlot;
    if (asked && asked !== before.regions.get(region)?.confirmSlot) changes.askedFor.set(i, asked.getTime());
    f.outcomes.set(region, result.outcome);
    changes.regions.set(`${monitor.id}|${region}`, {
      monitorId: monitor.id,
      region,
      state: regionStateOf(decision.state, region),
      outcome: result.outcome,
    });
    changes.monitors.set(monitor.id, { status: monitorStatusOf(f.outcomes, monitor.regions, quorum), checkedAt });
    if (result.certificate) changes.certificates.set(monitor.id, result.certificate);
    out[i] = { stored: true, counted: decision.counted, opened: null, resolved: null, confirmSlot: null };
    for (const event of decision.events) {
      const openId = openIncident.get(monitor.id);
      if (event.type === 'open' && !openId) {
        const incidentId = await openMonitorIncident(tx, inputs[i]!, decision.state);
        openIncident.set(monitor.id, incidentId);
        out[i]!.opened = incidentId;
      } else if (event.type === 'resolve' && openId) {
        await hotQuery(tx, RESOLVE_INCIDENT, [openId, checkedAt.toISOString()]);
        openIncident.delete(monitor.id);
        out[i]!.resolved = openId;
      }
    }
  }
  return changes;
}

const RESOLVE_INCIDENT = hotStatement(`
  UPDATE incidents SET status = 'resolved', "resolvedAt" = $2::timestamptz, "openMonitorId" = NULL WHERE id = $1::uuid`);

/**
 * A monitor's incident ($1 workspace, $2 monitor, $3 title, $4 metadata, $5 start, $6 reason, $7 evidence, $8 down
 * since), suppressed by the open incident of a monitor it depends on, the first in `dependsOn` order
 * (openParentIncidentOf, seen as committed when this statement runs). The triggers on incidents pin its escalation
 * policy and record its event, as for every insert.
 */
const OPEN_INCIDENT = hotStatement(`
  INSERT INTO incidents (id, "workspaceId", "monitorId", "openMonitorId", title, status, impact, source, metadata,
    "startedAt", reason, evidence, "downStartedAt", "suppressedById")
  VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $2::uuid, $3, 'open', 'major', 'monitor', $4::jsonb, $5::timestamptz,
    $6, $7::jsonb, $8::timestamptz, ${openParentIncidentOf(Prisma.raw('$2::uuid')).sql})
  RETURNING id`);

/** Opens the monitor's incident for the result that decided it: its reason, evidence and suppressing parent. */
async function openMonitorIncident(tx: HotTransaction, input: StoreInput, state: FlapState): Promise<string> {
  const { monitor, checkedAt, result } = input;
  const { evidence, downStartedAt } = await evidenceOf(tx, monitor, state, checkedAt);
  const [incident] = await hotQuery<{ id: string }>(tx, OPEN_INCIDENT, [
    monitor.workspaceId,
    monitor.id,
    `${monitor.name} is down`,
    JSON.stringify(monitor.metadata ?? {}),
    checkedAt.toISOString(),
    incidentReason(result.reason),
    JSON.stringify(evidence),
    (downStartedAt ?? checkedAt).toISOString(),
  ]);
  return incident!.id;
}

/**
 * Writes the region states that moved and each monitor's latest status (and certificate), in one statement. The rows
 * go as two JSON parameters rather than a dozen arrays: two values to send whatever the group's size (under Prisma, a
 * group's arrays, hundreds of values, made its query compiler most of the store's CPU in the worker).
 */
async function saveStates(tx: HotTransaction, changes: GroupChanges): Promise<void> {
  const states = JSON.stringify(
    [...changes.regions.values()].map((c) => ({
      monitorId: c.monitorId,
      region: c.region,
      consecutiveFailures: c.state.consecutiveFailures,
      consecutivePasses: c.state.consecutivePasses,
      failing: c.state.failing,
      lastCountedAt: c.state.lastCountedAt,
      confirmSlot: c.state.confirmSlot,
      lastOutcome: c.outcome,
    })),
  );
  const monitors = JSON.stringify(
    [...changes.monitors].map(([id, m]) => ({
      id,
      status: m.status,
      at: m.checkedAt,
      cert: changes.certificates.get(id) ?? null,
    })),
  );
  await hotQuery(tx, SAVE_STATES, [states, new Date().toISOString(), monitors]);
}

/** saveStates's statement ($1: the region states as JSON, $2: the time, $3: the monitors as JSON). */
const SAVE_STATES = hotStatement(`
    WITH states AS (
      INSERT INTO monitor_region_states AS s ("monitorId", region, "consecutiveFailures", "consecutivePasses", failing, "lastCountedAt", "confirmSlot", "lastOutcome")
      SELECT * FROM json_to_recordset($1::json) AS v("monitorId" uuid, region text, "consecutiveFailures" int,
        "consecutivePasses" int, failing boolean, "lastCountedAt" timestamptz, "confirmSlot" timestamptz, "lastOutcome" "CheckOutcome")
      ON CONFLICT ("monitorId", region) DO UPDATE SET "consecutiveFailures" = EXCLUDED."consecutiveFailures",
        "consecutivePasses" = EXCLUDED."consecutivePasses", failing = EXCLUDED.failing, "lastCountedAt" = EXCLUDED."lastCountedAt",
        "confirmSlot" = EXCLUDED."confirmSlot", "lastOutcome" = EXCLUDED."lastOutcome"
    )
    UPDATE monitors AS m SET status = v.status::text::"MonitorStatus", "lastCheckedAt" = v.at, "updatedAt" = $2::timestamptz,
      certificate = coalesce(v.cert, m.certificate)
    FROM json_to_recordset($3::json) AS v(id uuid, status text, at timestamptz, cert jsonb)
    WHERE m.id = v.id`);

type FlapRow = {
  id: string;
  openIncidentId: string | null;
  regions: Array<
    Omit<RegionFlapState, 'lastCountedAt' | 'confirmSlot'> & {
      region: string;
      lastCountedAt: string | null;
      confirmSlot: string | null;
      lastOutcome: ProbeResult['outcome'] | 'missed' | null;
    }
  > | null;
  maintenance: CoveringWindowJson[] | null;
};

/** loadFlapStates's statement ($1: the monitors, $2 and $3: the group's first and last check times). */
const FLAP_STATES = hotStatement(`
    SELECT m.id, i.id AS "openIncidentId",
      (SELECT json_agg(json_build_object('region', s.region, 'consecutiveFailures', s."consecutiveFailures",
        'consecutivePasses', s."consecutivePasses", 'failing', s.failing, 'lastCountedAt', s."lastCountedAt",
        'confirmSlot', s."confirmSlot", 'lastOutcome', s."lastOutcome"))
       FROM monitor_region_states s WHERE s."monitorId" = m.id) AS regions,
      ${
        coveringWindowsJson({
          workspaceId: Prisma.raw('m."workspaceId"'),
          componentId: Prisma.raw('m."componentId"'),
          from: Prisma.raw('$2::timestamptz'),
          to: Prisma.raw('$3::timestamptz'),
        }).sql
      } AS maintenance
    FROM monitors m LEFT JOIN incidents i ON i."openMonitorId" = m.id
    WHERE m.id = ANY($1::uuid[])`);

/**
 * Each monitor's flap state (its region rows and open incident), and the maintenance windows (not cancelled) covering
 * its component at some moment between `from` and `to` (the group's check times; a window without components covers
 * the whole workspace), read in one statement: whether a result was taken in maintenance is decided here, at
 * `checkedAt`, with no query of its own per check.
 */
async function loadFlapStates(
  tx: HotTransaction,
  monitorIds: string[],
  from: Date,
  to: Date,
): Promise<
  Map<
    string,
    {
      state: FlapState;
      /** Each region's latest stored outcome (monitor_region_states.lastOutcome). */
      outcomes: Map<string, ProbeResult['outcome']>;
      openIncidentId: string | null;
      maintenance: Array<{ startsAt: Date; endsAt: Date }>;
    }
  >
> {
  const rows = await hotQuery<FlapRow>(tx, FLAP_STATES, [monitorIds, from.toISOString(), to.toISOString()]);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        openIncidentId: r.openIncidentId,
        outcomes: new Map(
          (r.regions ?? []).flatMap(({ region, lastOutcome }) =>
            lastOutcome && lastOutcome !== 'missed' ? [[region, lastOutcome] as const] : [],
          ),
        ),
        maintenance: coveringWindows(r.maintenance),
        state: {
          incidentOpen: r.openIncidentId !== null,
          regions: new Map(
            (r.regions ?? []).map(({ region, lastCountedAt, confirmSlot, lastOutcome: _, ...counters }) => [
              region,
              {
                ...counters,
                lastCountedAt: lastCountedAt === null ? null : new Date(lastCountedAt),
                confirmSlot: confirmSlot === null ? null : new Date(confirmSlot),
              },
            ]),
          ),
        },
      },
    ]),
  );
}

/**
 * A monitor's status from its regions' latest results (docs/decisions.md, "A multi-region monitor's status"): `down`
 * when at least `quorum` of its regions' latest results are down, otherwise `degraded` when any is down or degraded,
 * otherwise `up`. With one region: that region's latest result. Regions no longer checking it are left out.
 */
export function monitorStatusOf(
  outcomes: ReadonlyMap<string, ProbeResult['outcome']>,
  regions: readonly string[],
  quorum: number,
): ProbeResult['outcome'] {
  const latest = regions.flatMap((r) => outcomes.get(r) ?? []);
  if (latest.filter((o) => o === 'down').length >= quorum) return 'down';
  return latest.some((o) => o !== 'up') ? 'degraded' : 'up';
}

/**
 * An incident's `reason`: the stable code of the result that opened it (the part before any `: detail`), in the
 * contract's words where a result's code differs (`unexpected_status:503` -> `status_code`). The result itself keeps
 * its full reason, shown in the evidence.
 */
export function incidentReason(resultReason: string | null): string | null {
  if (!resultReason) return null;
  const code = /^[a-z_]+/.exec(resultReason)?.[0] ?? resultReason.slice(0, 100);
  return INCIDENT_REASON_NAMES[code] ?? code;
}
const INCIDENT_REASON_NAMES: Record<string, string> = {
  unexpected_status: 'status_code',
};

/** One region's part of an incident's evidence (the incident record shows it as stored). */
export interface EvidenceEntry {
  region: string;
  failing: boolean;
  lastResult: {
    checkedAt: string;
    status: ProbeResult['outcome'];
    reason: string | null;
    statusCode: number | null;
    totalMs: number | null;
    address: string | null;
  } | null;
}

type EvidenceRow = {
  region: string;
  checkedAt: Date | null;
  outcome: ProbeResult['outcome'] | null;
  reason: string | null;
  statusCode: number | null;
  responseMs: number | null;
  address: string | null;
  downSince: Date | null;
};

/** evidenceOf's statement ($1: the monitor's regions, $2: the monitor, $3: since). */
const EVIDENCE = hotStatement(`
    SELECT r.region, c."checkedAt", c.outcome::text AS outcome, c.reason, c."statusCode", c."responseMs", host(c.address) AS address,
      d."downSince"
    FROM unnest($1::text[]) AS r(region)
    LEFT JOIN LATERAL (
      SELECT "checkedAt", outcome, reason, "statusCode", "responseMs", address FROM check_results_all
      WHERE "monitorId" = $2::uuid AND region = r.region AND outcome <> 'missed'
      ORDER BY slot DESC, "checkedAt" DESC LIMIT 1
    ) c ON true
    LEFT JOIN LATERAL (
      SELECT min(f.slot) AS "downSince" FROM check_results f
      WHERE f."monitorId" = $2::uuid AND f.region = r.region AND f.outcome = 'down' AND f.slot >= $3
        AND f.slot > coalesce((
          SELECT p.slot FROM check_results p
          WHERE p."monitorId" = $2::uuid AND p.region = r.region AND p.outcome IN ('up', 'degraded')
            AND p.slot >= $3
          ORDER BY p.slot DESC LIMIT 1), '-infinity')
    ) d ON true`);

/**
 * Per region of the monitor, as the incident opens: whether it is failing and its latest result (this transaction's
 * included); and where its down time starts for uptime accounting: the slot of the earliest failing result among the
 * failing regions (those that made the quorum), each region's current run of `down` results (after its latest passing
 * one), looked for among the raw results of the last MAX_RESULT_LAG_MS (raw for at least that long: older runs start
 * there). One index walk per region, only when an incident opens: ordered by slot first, so the raw results are read
 * backwards along the unique (monitorId, region, slot) index instead of sorting every row of the region by checkedAt.
 */
async function evidenceOf(
  tx: HotTransaction,
  monitor: Pick<MonitorForStore, 'id' | 'regions'>,
  state: FlapState,
  checkedAt: Date,
): Promise<{ evidence: EvidenceEntry[]; downStartedAt: Date | null }> {
  const since = new Date(checkedAt.getTime() - MAX_RESULT_LAG_MS);
  const rows = await hotQuery<EvidenceRow>(tx, EVIDENCE, [[...monitor.regions], monitor.id, since.toISOString()]);
  const starts = rows.flatMap((r) => (regionStateOf(state, r.region).failing && r.downSince ? [r.downSince] : []));
  return {
    downStartedAt: starts.length ? new Date(Math.min(...starts.map((d) => d.getTime()))) : null,
    evidence: rows.map((r) => ({
      region: r.region,
      failing: regionStateOf(state, r.region).failing,
      lastResult:
        r.checkedAt && r.outcome
          ? {
              checkedAt: r.checkedAt.toISOString(),
              status: r.outcome,
              reason: r.reason,
              statusCode: r.statusCode,
              totalMs: r.responseMs,
              address: r.address,
            }
          : null,
    })),
  };
}
