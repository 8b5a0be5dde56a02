import {
  createBatchLoader,
  hotQuery,
  hotStatement,
  perClient,
  maintenanceCoverage,
  maintenanceWindowsNear,
  pagination,
  paginationQuerySchema,
  singleQueryValue,
  type Config,
  type CoverageWindow,
  type Pagination,
  type PrismaClient,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import { pageWindow, withJsonText } from '../records.js';
import { listMonitorUptimes, type UptimeSubject } from './list-monitor-uptimes.js';
import {
  maintenanceCoverOf,
  monitorFilterWhere,
  narrowsMonitors,
  needsCover,
  withMonitorFilters,
  type MaintenanceCover,
} from './monitor-filters.js';
import { averageResponseTimes, lastDayWindow } from './monitor-rollups.js';
import {
  monitorRecordSelect,
  RECORD_COLUMNS,
  recordWithJson,
  type MonitorRecord,
  type MonitorRow,
  type MONITOR_STATUSES,
} from './monitor-record.js';

/** The statuses from the worst to the best, then those without a check state: `sort=status` and the console's counts. */
export const MONITOR_STATUS_ORDER = [
  'down',
  'degraded',
  'up',
  'pending',
  'maintenance',
  'paused',
] as const satisfies ReadonlyArray<(typeof MONITOR_STATUSES)[number]>;

const SORT_KEYS = ['name', 'status', 'uptime24h', 'responseTime'] as const;
export type MonitorSortKey = (typeof SORT_KEYS)[number];
const SORTS = SORT_KEYS.flatMap((k) => [k, `-${k}`]) as [string, ...string[]];

/** GET /monitors query: pagination, the filters (monitor-filters.ts) and `sort`. */
export const monitorListQuerySchema = withMonitorFilters(
  paginationQuerySchema.extend({
    sort: singleQueryValue(z.enum(SORTS))
      .optional()
      .openapi({
        description:
          '`name`, `status`, `uptime24h` or `responseTime`, `-` first for descending; omitted: oldest first. `name` ' +
          'ignores case and reads digits as numbers (web-2 before web-10). `status` ranks down, degraded, up, pending, ' +
          'maintenance, paused. `uptime24h` and `responseTime` are the uptime and the average response time (all ' +
          'regions) of the last 24 whole hours, as the console shows them; a monitor without data there comes last in ' +
          'both directions. Ties go by name, then id.',
      }),
  }),
);
export type MonitorListQuery = z.output<typeof monitorListQuerySchema>;

interface PageKey {
  workspaceId: string;
  query: MonitorListQuery;
  cover: MaintenanceCover | null;
}

/**
 * Page reads of one event-loop turn (ADR 0008): identical ones (same workspace, filters and page) share one read, the
 * count and the page sent side by side; every call is still answered by reads sent after it was made. The total
 * is counted beside the page, not in one snapshot with it: a monitor created or deleted meanwhile can make the two
 * disagree by that monitor, as the next page would anyway. (Not listPage: its count and page go one after the other
 * in a transaction, and this hot path waits one round trip for both and the maintenance windows.)
 */
const monitorPages = perClient((prisma: PrismaClient) =>
  createBatchLoader<PageKey, { total: number; rows: MonitorRow[] }>(
    async (keys) => {
      const distinct = new Map(keys.map((k) => [pageKeyOf(k), k]));
      const out = new Map<string, { total: number; rows: MonitorRow[] }>();
      await Promise.all(
        [...distinct].map(async ([key, { workspaceId, query, cover }]) => {
          const where = monitorFilterWhere(workspaceId, query, cover);
          const { skip, take } = pageWindow(query);
          const [total, rows] = await Promise.all(
            narrowsMonitors(where)
              ? [
                  prisma.monitor.count({ where }),
                  prisma.monitor.findMany({
                    where,
                    select: monitorRecordSelect,
                    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
                    skip,
                    take,
                  }),
                ]
              : [
                  hotQuery<{ total: number }>(prisma, WORKSPACE_MONITOR_COUNT, [workspaceId]).then(([r]) => r!.total),
                  hotQuery<MonitorRow>(prisma, WORKSPACE_MONITOR_PAGE, [workspaceId, skip, take]),
                ],
          );
          out.set(key, { total, rows });
        }),
      );
      return out;
    },
    { keyOf: (k) => pageKeyOf(k) },
  ),
);
/**
 * The unfiltered page, oldest first, and its count (what monitorFilterWhere and the findMany above ask without
 * filters): hot statements (docs/adr/0021-hot-statements-on-the-pool.md), as Prisma's mapping of a page of 100 rows of
 * 55 columns was a large share of a list request's CPU. Filtered pages, whose statements vary, stay on Prisma.
 */
const WORKSPACE_MONITOR_PAGE = hotStatement(`
  SELECT ${RECORD_COLUMNS} FROM monitors m WHERE m."workspaceId" = $1
  ORDER BY m."createdAt" ASC, m.id ASC OFFSET $2 LIMIT $3`);
const WORKSPACE_MONITOR_COUNT = hotStatement(
  `SELECT count(*)::int AS total FROM monitors m WHERE m."workspaceId" = $1`,
);
const pageKeyOf = (k: PageKey) => JSON.stringify([k.workspaceId, k.query, k.cover]);

const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

type NameRanks = Map<string, { name: string; rank: number }>;
/** Workspaces whose name ranks are kept (the most recently sorted). */
const NAME_RANKS_KEPT = 32;
const nameRanks = new Map<string, NameRanks>();

/**
 * Each monitor's rank in `byName` order (names it finds equal share one), kept per workspace and used again while
 * every monitor asked about is there under the same name: the collator stays the order's one definition, and sorting
 * 10,000 names with it takes about 100 ms where comparing their ranks takes a few. Ranks of the whole workspace order
 * any subset of it (a filtered list) as well; a new or renamed monitor ranks them all again.
 */
function rankedByName(workspaceId: string, keys: ReadonlyArray<{ id: string; name: string }>): NameRanks {
  let ranks = nameRanks.get(workspaceId);
  if (!ranks || !keys.every((k) => ranks!.get(k.id)?.name === k.name)) {
    const sorted = [...keys].sort((a, b) => byName.compare(a.name, b.name));
    ranks = new Map();
    let rank = 0;
    for (let i = 0; i < sorted.length; i++) {
      if (i > 0 && byName.compare(sorted[i - 1]!.name, sorted[i]!.name) !== 0) rank = i;
      ranks.set(sorted[i]!.id, { name: sorted[i]!.name, rank });
    }
  }
  nameRanks.delete(workspaceId);
  nameRanks.set(workspaceId, ranks);
  if (nameRanks.size > NAME_RANKS_KEPT) nameRanks.delete(nameRanks.keys().next().value!);
  return ranks;
}

/** The columns every sort reads of each matching monitor, and those the uptime sort adds (UptimeSubject's). */
const SORT_KEY_SELECT = { id: true, name: true, enabled: true, status: true, componentId: true } as const;
const UPTIME_SUBJECT_SELECT = { createdAt: true, type: true, regions: true } as const;
type SortKey = Pick<MonitorRow, keyof typeof SORT_KEY_SELECT> & Partial<UptimeSubject>;

/**
 * Every unfiltered sort's keys (with UptimeSubject's columns for the uptime sort), through a hot statement (ADR 0021):
 * Prisma's mapping of 10,000 rows cost a sorted page more than the rest of its reads. Plain rows: as one JSON text,
 * PostgreSQL spent 45-65 ms building it. createdAt as epoch milliseconds (exact), so that the driver parses a number,
 * not a date.
 */
const SORT_KEY_COLUMNS = `m.id, m.name, m.enabled, m.status::text AS status, m."componentId"`;
const UPTIME_SUBJECT_COLUMNS = `round(date_part('epoch', m."createdAt") * 1000)::float8 AS "createdAt",
  m.type::text AS type, m.regions`;
const WORKSPACE_SORT_KEYS = {
  plain: hotStatement(`SELECT ${SORT_KEY_COLUMNS} FROM monitors m WHERE m."workspaceId" = $1`),
  uptime: hotStatement(
    `SELECT ${SORT_KEY_COLUMNS}, ${UPTIME_SUBJECT_COLUMNS} FROM monitors m WHERE m."workspaceId" = $1`,
  ),
};

/** The keys of the monitors matching `where`; with `uptime`, each with what accounting needs too. */
async function sortKeys(
  prisma: PrismaClient,
  workspaceId: string,
  where: ReturnType<typeof monitorFilterWhere>,
  uptime: boolean,
): Promise<SortKey[]> {
  if (narrowsMonitors(where))
    return prisma.monitor.findMany({ where, select: { ...SORT_KEY_SELECT, ...(uptime ? UPTIME_SUBJECT_SELECT : {}) } });
  const rows = await hotQuery<Omit<SortKey, 'createdAt'> & { createdAt?: number }>(
    prisma,
    uptime ? WORKSPACE_SORT_KEYS.uptime : WORKSPACE_SORT_KEYS.plain,
    [workspaceId],
  );
  if (uptime) for (const r of rows) (r as unknown as SortKey).createdAt = new Date(r.createdAt!);
  return rows as unknown as SortKey[];
}

/**
 * A sorted page: every matching monitor's sort key is read (the few columns it needs, or one grouped read of the
 * rollups for the 24-hour figures), sorted here, and the page's rows read by id. Nulls last in both directions;
 * ties by name, then id.
 */
async function sortedPage(
  deps: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  ctx: ServiceContext,
  query: MonitorListQuery & { sort: string },
  cover: MaintenanceCover | null,
  windows: readonly CoverageWindow[],
): Promise<{ total: number; rows: MonitorRow[] }> {
  const { prisma } = deps;
  const where = monitorFilterWhere(ctx.workspace.id, query, cover);
  const descending = query.sort.startsWith('-');
  const key = (descending ? query.sort.slice(1) : query.sort) as MonitorSortKey;
  const keys = await sortKeys(prisma, ctx.workspace.id, where, key === 'uptime24h');
  const ranks = rankedByName(ctx.workspace.id, keys);
  let value: (k: (typeof keys)[number]) => number | null;
  if (key === 'name') value = (k) => ranks.get(k.id)!.rank;
  else if (key === 'status') {
    const until = maintenanceCoverage(
      windows,
      keys.map((k) => k.componentId),
      ctx.now,
    );
    const rank = (k: (typeof keys)[number]) =>
      MONITOR_STATUS_ORDER.indexOf(!k.enabled ? 'paused' : until.has(k.componentId) ? 'maintenance' : k.status);
    value = rank;
  } else {
    const figures =
      key === 'uptime24h'
        ? new Map(
            [
              ...(await listMonitorUptimes(deps, {
                ctx,
                input: { monitors: keys as Array<SortKey & UptimeSubject>, windows: ['24h'] },
              })),
            ].map(([id, u]) => [id, u['24h']]),
          )
        : await averageResponseTimes(
            prisma,
            keys.map((k) => k.id),
            lastDayWindow(ctx.now),
          );
    value = (k) => figures.get(k.id) ?? null;
  }
  // Each key's value and name rank looked up once, not at each of the sort's comparisons.
  const sorted = keys.map((k) => ({ id: k.id, value: value(k), rank: ranks.get(k.id)!.rank }));
  const sign = descending ? -1 : 1;
  sorted.sort((a, b) => {
    const va = a.value;
    const vb = b.value;
    if (va !== vb) {
      if (va === null) return 1;
      if (vb === null) return -1;
      return sign * (va - vb);
    }
    return a.rank - b.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  });
  const { skip, take } = pageWindow(query);
  const ids = sorted.slice(skip, skip + take).map((k) => k.id);
  const rows = ids.length
    ? await prisma.monitor.findMany({
        where: { workspaceId: ctx.workspace.id, id: { in: ids } },
        select: monitorRecordSelect,
      })
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { total: sorted.length, rows: ids.flatMap((id) => byId.get(id) ?? []) };
}

/**
 * A page of the workspace's monitors matching the filters, oldest first (stable under concurrent inserts) or in the
 * order `sort` asks. Unsorted, the page, its count and the workspace's maintenance windows are read at once (one round
 * trip of waiting); a status filter waits for the windows first (the status a record shows depends on them).
 */
export async function listMonitors(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl' | 'checkRegions'> },
  { ctx, input: query }: { ctx: ServiceContext; input: MonitorListQuery },
): Promise<{ data: MonitorRecord[]; pagination: Pagination }> {
  const { prisma, config } = deps;
  const { now } = ctx;
  const windowsRead = maintenanceWindowsNear(prisma, ctx.workspace.id, now);
  const cover = needsCover(query) ? maintenanceCoverOf(await windowsRead, now) : null;
  const { sort } = query;
  const [page, windows] = await Promise.all([
    sort
      ? windowsRead.then((w) => sortedPage(deps, ctx, { ...query, sort }, cover, w))
      : monitorPages(prisma).load({ workspaceId: ctx.workspace.id, query, cover }),
    windowsRead,
  ]);
  const { total, rows } = page!;
  const until = maintenanceCoverage(
    windows,
    rows.map((r) => r.componentId),
    now,
  );
  // Identical concurrent lists share their rows (one batched read), and with them each record and its JSON text.
  const made = rows.map((r) =>
    recordWithJson(r, {
      publicBaseUrl: config.publicBaseUrl,
      checkRegions: config.checkRegions,
      maintenanceUntil: until.get(r.componentId) ?? null,
      now,
    }),
  );
  const answer = { data: made.map((m) => m.record), pagination: pagination(query, total) };
  return withJsonText(
    answer,
    () => `{"data":[${made.map((m) => m.json()).join(',')}],"pagination":${JSON.stringify(answer.pagination)}}`,
  );
}
