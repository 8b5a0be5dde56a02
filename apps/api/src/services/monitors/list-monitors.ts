import {
  commaListQueryParam,
  createBatchLoader,
  perClient,
  maintenanceCoverage,
  maintenanceWindowsNear,
  MONITOR_TYPES,
  pagination,
  paginationQuerySchema,
  singleQueryValue,
  uuidInputSchema,
  type Config,
  type Pagination,
  type Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import { pageWindow } from '../records.js';
import { monitorRecordSelect, toMonitorRecord, type MonitorRecord, type MonitorRow } from './monitor-record.js';

/** The check states `status` filters on (a paused monitor is found with `enabled=false`). */
const FILTER_STATUSES = ['pending', 'up', 'degraded', 'down'] as const;
/** `metadata.<key>` (the spec's form) or `metadata[<key>]` (OpenAPI's deepObject, what generated clients send). */
const METADATA_KEY = /^metadata(?:\.(.*)|\[(.*)\])$/s;
const metadataKeyOf = (param: string): string | null => {
  const m = METADATA_KEY.exec(param);
  return m ? (m[1] ?? m[2] ?? '') : null;
};
const METADATA_KEY_MAX = 64;
const METADATA_VALUE_MAX = 500;

/**
 * GET /monitors query: pagination plus filters, combined with AND. `metadata.<key>=<value>` parameters (any number,
 * each key once) are the one open-ended part: every other unknown parameter is refused as with a strict schema.
 */
const filters = paginationQuerySchema.extend({
  status: commaListQueryParam(FILTER_STATUSES).optional(),
  type: commaListQueryParam(MONITOR_TYPES).optional(),
  enabled: singleQueryValue(z.enum(['true', 'false'])).optional(),
  environment: singleQueryValue(z.string().min(1).max(60)).optional(),
  componentId: singleQueryValue(uuidInputSchema).optional(),
  q: singleQueryValue(z.string().min(1).max(120))
    .optional()
    .openapi({ description: 'A case-insensitive substring of the name.' }),
  // Documented only: the parameters arrive as `metadata[<key>]` or `metadata.<key>` (judged below), never as `metadata`.
  metadata: z
    .record(z.string().min(1).max(METADATA_KEY_MAX), z.string().max(METADATA_VALUE_MAX))
    .optional()
    .openapi({
      param: { style: 'deepObject', explode: true },
      description:
        'Exact match of metadata values, AND-ed: `metadata[env]=prod&metadata[team]=web`. The form ' +
        '`metadata.env=prod` is the same filter. Each key at most once, in either spelling (both, or one twice: 400).',
    }),
});
const KNOWN = new Set(Object.keys(filters.shape));
export const monitorListQuerySchema = filters.loose().superRefine(
  (query, ctx) => {
    // Metadata key -> the parameter that gave it first: `metadata.env` and `metadata[env]` are one filter, so both
    // given (like one parameter given twice) is 400, not an AND of two values that matches nothing.
    const given = new Map<string, string>();
    for (const [key, value] of Object.entries(query)) {
      if (KNOWN.has(key)) continue;
      const metaKey = metadataKeyOf(key);
      if (metaKey === null || metaKey.length === 0 || metaKey.length > METADATA_KEY_MAX) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'Unknown field' });
        continue;
      }
      const first = given.get(metaKey);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `filters the same metadata key as ${first}: give it once`,
        });
      given.set(metaKey, first ?? key);
      if (typeof value !== 'string') ctx.addIssue({ code: 'custom', path: [key], message: 'was given more than once' });
      else if (value.length > METADATA_VALUE_MAX)
        ctx.addIssue({ code: 'custom', path: [key], message: `must be at most ${METADATA_VALUE_MAX} characters` });
    }
    // Also when a filter failed: one 400 names every offending parameter.
  },
  { when: () => true },
);
export type MonitorListQuery = z.output<typeof monitorListQuerySchema>;

/** The filters as a Prisma condition, always within the caller's workspace. */
function whereOf(workspaceId: string, query: MonitorListQuery): Prisma.MonitorWhereInput {
  const and: Prisma.MonitorWhereInput[] = [];
  // A paused monitor shows `paused`, whatever its last check state: `status` finds enabled monitors only.
  if (query.status) and.push({ status: { in: query.status }, enabled: true });
  if (query.type) and.push({ type: { in: query.type } });
  if (query.enabled) and.push({ enabled: query.enabled === 'true' });
  if (query.environment !== undefined) and.push({ environment: query.environment });
  if (query.componentId) and.push({ componentId: query.componentId });
  // Prisma hands `contains` to ILIKE as is: `%`, `_` and backslash are escaped to match themselves.
  if (query.q !== undefined) and.push({ name: { contains: query.q.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } });
  for (const [param, value] of Object.entries(query)) {
    const key = param === 'metadata' ? null : metadataKeyOf(param);
    if (key) and.push({ metadata: { path: [key], equals: value as string } });
  }
  return { workspaceId, ...(and.length ? { AND: and } : {}) };
}

interface PageKey {
  workspaceId: string;
  query: MonitorListQuery;
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
        [...distinct].map(async ([key, { workspaceId, query }]) => {
          const where = whereOf(workspaceId, query);
          const [total, rows] = await Promise.all([
            prisma.monitor.count({ where }),
            prisma.monitor.findMany({
              where,
              select: monitorRecordSelect,
              orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
              ...pageWindow(query),
            }),
          ]);
          out.set(key, { total, rows });
        }),
      );
      return out;
    },
    { keyOf: (k) => pageKeyOf(k) },
  ),
);
const pageKeyOf = (k: PageKey) => JSON.stringify([k.workspaceId, k.query]);

/**
 * A page of the workspace's monitors matching the filters, oldest first (stable under concurrent inserts). The page,
 * its count and the workspace's maintenance windows are read at once (one round trip of waiting).
 */
export async function listMonitors(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl' | 'checkRegions'> },
  { ctx, input: query }: { ctx: ServiceContext; input: MonitorListQuery },
): Promise<{ data: MonitorRecord[]; pagination: Pagination }> {
  const { now } = ctx;
  const [page, windows] = await Promise.all([
    monitorPages(prisma).load({ workspaceId: ctx.workspace.id, query }),
    maintenanceWindowsNear(prisma, ctx.workspace.id, now),
  ]);
  const { total, rows } = page!;
  const until = maintenanceCoverage(
    windows,
    rows.map((r) => r.componentId),
    now,
  );
  return {
    data: rows.map((r) =>
      toMonitorRecord(r, {
        publicBaseUrl: config.publicBaseUrl,
        checkRegions: config.checkRegions,
        maintenanceUntil: until.get(r.componentId) ?? null,
        now,
      }),
    ),
    pagination: pagination(query, total),
  };
}
