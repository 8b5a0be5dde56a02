import { hotQuery, hotStatement, type HotStatement } from '../db/hot-query.js';
import type { PrismaClient } from '../db/prisma.js';
import type { Span, UptimeTimeline } from './accounting.js';

/** A monitor as uptime accounting needs it. */
export interface AccountedMonitor {
  id: string;
  componentId: string;
  createdAt: Date;
  /** The regions that check it (monitorRegions): a slot is no data when every one of them missed it. */
  regions: readonly string[];
}

/** Above this many monitors, their spans and incidents are read by workspace (below). */
const BY_WORKSPACE_FROM = 1000;
type SpanKind = 'paused' | 'degraded' | 'missed';
interface TimelineParts {
  paused: Span[];
  degraded: Span[];
  missed: Map<string, Span[]>;
  incidents: Array<Span & { id: string }>;
}
/** The empty list every timeline without spans of a kind shares (timelines are read-only). */
const NONE: readonly never[] = Object.freeze([]);

/** A statement of the monitors asked about (`$n`: their ids) and one of the workspace's monitors (`$n`: its id). */
interface ByMonitorsOrWorkspace {
  monitors: HotStatement;
  workspace: HotStatement;
}
function byMonitorsOrWorkspace(n: number, text: (ids: string) => string): ByMonitorsOrWorkspace {
  return {
    monitors: hotStatement(text(`$${n}::uuid[]`)),
    workspace: hotStatement(text(`ARRAY(SELECT id FROM monitors WHERE "workspaceId" = $${n}::uuid)`)),
  };
}

// Spans and incidents handed over as one text per monitor ("kind region startMs endMs,..."; no end: still going),
// instants as epoch milliseconds (the columns hold milliseconds: exact as doubles): a month of 1,000 monitors is tens
// of thousands of rows, which the driver and Prisma would turn into objects one value at a time, and which JSON or
// numeric epochs made PostgreSQL spend more on than on finding them (bench/scenarios/uptime-report.ts). Hot statements
// (docs/adr/0021-hot-statements-on-the-pool.md): parsed once per connection, not at every page, report and uptime read.

/** $1 the monitors (or their workspace), [$2, $3) the range. */
const SPANS = byMonitorsOrWorkspace(
  1,
  (ids) => `
  SELECT "monitorId"::text AS "monitorId", string_agg(concat_ws(' ', kind, region,
    round(date_part('epoch', "startedAt") * 1000)::bigint, round(date_part('epoch', "endedAt") * 1000)::bigint),
    ',') AS spans
  FROM monitor_spans
  WHERE "monitorId" = ANY(${ids}) AND "startedAt" < $3::timestamptz
    AND ("endedAt" IS NULL OR "endedAt" > $2::timestamptz)
  GROUP BY "monitorId"`,
);

/** $1 the workspace, $2 its monitors asked about (or the workspace again), [$3, $4) the range. */
const INCIDENTS = byMonitorsOrWorkspace(
  2,
  (ids) => `
  SELECT "monitorId"::text AS "monitorId", string_agg(concat_ws(' ', id,
    round(date_part('epoch', coalesce("downStartedAt", "startedAt")) * 1000)::bigint,
    round(date_part('epoch', "resolvedAt") * 1000)::bigint), ',') AS incidents
  FROM incidents
  WHERE "workspaceId" = $1::uuid AND "monitorId" = ANY(${ids}) AND source = 'monitor'
    AND coalesce("downStartedAt", "startedAt") < $4::timestamptz
    AND ("resolvedAt" IS NULL OR "resolvedAt" > $3::timestamptz)
  GROUP BY "monitorId"`,
);

/** $1 the workspace, [$2, $3) the range. */
const WINDOWS = hotStatement(`
  SELECT w."startsAt" AS from, least(w."endsAt", coalesce(w."cancelledAt", w."endsAt")) AS to,
    (SELECT array_agg(c."componentId"::text) FROM maintenance_components c WHERE c."maintenanceId" = w.id)
      AS "componentIds"
  FROM maintenance_windows w
  WHERE w."workspaceId" = $1::uuid AND w."startsAt" < $3::timestamptz AND w."endsAt" > $2::timestamptz
    AND (w."cancelledAt" IS NULL OR w."cancelledAt" > w."startsAt")`);

/**
 * The timelines of a workspace's monitors over [from, to), read in three statements whatever their number
 * (docs/adr/0018-uptime-accounting-spans.md): their spans (paused, degraded, missed), their monitor incidents (down
 * from `downStartedAt`, or `startedAt` for incidents older than it, to `resolvedAt`; manual incidents count for
 * nothing), and the workspace's maintenance windows with the components they cover (in progress from startsAt to
 * endsAt, or to its cancellation when it was called off while running; none: the whole workspace).
 */
export async function loadUptimeTimelines(
  prisma: PrismaClient,
  input: { workspaceId: string; monitors: readonly AccountedMonitor[]; from: Date; to: Date },
): Promise<Map<string, UptimeTimeline>> {
  const { workspaceId, monitors, from, to } = input;
  const out = new Map<string, UptimeTimeline>();
  if (monitors.length === 0) return out;
  // Many monitors (a list sorted by uptime: every one of the workspace's) are named by their workspace rather than
  // one by one: the driver writes and PostgreSQL parses an array of 10,000 uuids otherwise, twice. Rows of the
  // workspace's other monitors are read then, and passed over below.
  const [source, ids] =
    monitors.length > BY_WORKSPACE_FROM
      ? (['workspace', workspaceId] as const)
      : (['monitors', monitors.map((m) => m.id)] as const);
  const [spans, incidents, windows] = await Promise.all([
    hotQuery<{ monitorId: string; spans: string }>(prisma, SPANS[source], [ids, from, to]),
    hotQuery<{ monitorId: string; incidents: string }>(prisma, INCIDENTS[source], [workspaceId, ids, from, to]),
    hotQuery<{ from: Date; to: Date; componentIds: string[] | null }>(prisma, WINDOWS, [workspaceId, from, to]),
  ]);
  // Each monitor's parts made when a row names it: most monitors have none, and share the empty lists below.
  const asked = new Set(monitors.map((m) => m.id));
  const byMonitor = new Map<string, TimelineParts>();
  const partsOf = (id: string) => {
    let t = byMonitor.get(id);
    if (!t && asked.has(id)) byMonitor.set(id, (t = { paused: [], degraded: [], missed: new Map(), incidents: [] }));
    return t;
  };
  const instant = (ms: string | undefined) => (ms === undefined ? null : Number(ms));
  for (const row of spans) {
    const t = partsOf(row.monitorId);
    if (!t) continue;
    for (const entry of row.spans.split(',')) {
      const [kind, region, start, end] = entry.split(' ') as [SpanKind, string, string, string | undefined];
      const span = { from: Number(start), to: instant(end) };
      if (kind !== 'missed') t[kind].push(span);
      else {
        const list = t.missed.get(region);
        if (list) list.push(span);
        else t.missed.set(region, [span]);
      }
    }
  }
  for (const row of incidents) {
    const t = partsOf(row.monitorId);
    for (const entry of row.incidents.split(',')) {
      const [id, start, end] = entry.split(' ') as [string, string, string | undefined];
      t?.incidents.push({ id, from: Number(start), to: instant(end) });
    }
  }
  // A window's components as a set: a report asks each window about every monitor.
  const maintenance = windows.map((w) => ({
    span: { from: w.from.getTime(), to: w.to.getTime() },
    components: w.componentIds === null ? null : new Set(w.componentIds),
  }));
  for (const m of monitors) {
    const t = byMonitor.get(m.id);
    out.set(m.id, {
      createdAt: m.createdAt.getTime(),
      paused: t?.paused ?? NONE,
      degraded: t?.degraded ?? NONE,
      incidents: t?.incidents ?? NONE,
      missed: t ? missedEverywhere(m.regions, t.missed) : NONE,
      maintenance:
        maintenance.length === 0
          ? NONE
          : maintenance.flatMap((w) => (w.components === null || w.components.has(m.componentId) ? [w.span] : [])),
    });
  }
  return out;
}

/** The time every region missed: the intersection of each region's missed spans (none when a region has none). */
export function missedEverywhere(regions: readonly string[], byRegion: ReadonlyMap<string, readonly Span[]>): Span[] {
  if (regions.length === 0) return [];
  let acc: Array<{ from: number; to: number }> | null = null;
  for (const region of regions) {
    const mine = merged(byRegion.get(region) ?? []);
    acc = acc === null ? mine : intersect(acc, mine);
    if (acc.length === 0) return [];
  }
  return acc ?? [];
}

/** Spans sorted and merged where they overlap or touch (missed spans always end). */
function merged(spans: readonly Span[]): Array<{ from: number; to: number }> {
  const sorted = spans
    .map((s) => ({ from: s.from, to: s.to ?? Infinity }))
    .filter((s) => s.to > s.from)
    .sort((a, b) => a.from - b.from);
  const out: Array<{ from: number; to: number }> = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else out.push({ ...s });
  }
  return out;
}

function intersect(a: ReadonlyArray<{ from: number; to: number }>, b: ReadonlyArray<{ from: number; to: number }>) {
  const out: Array<{ from: number; to: number }> = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const from = Math.max(a[i]!.from, b[j]!.from);
    const to = Math.min(a[i]!.to, b[j]!.to);
    if (to > from) out.push({ from, to });
    if (a[i]!.to < b[j]!.to) i++;
    else j++;
  }
  return out;
}
