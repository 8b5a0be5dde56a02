import {
  commaListQueryParam,
  MONITOR_TYPES,
  singleQueryValue,
  uuidInputSchema,
  windowInProgress,
  type CoverageWindow,
  type Prisma,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { MONITOR_STATUSES } from './monitor-record.js';

/** `metadata.<key>` (the spec's form) or `metadata[<key>]` (OpenAPI's deepObject, what generated clients send). */
const METADATA_KEY = /^metadata(?:\.(.*)|\[(.*)\])$/s;
const metadataKeyOf = (param: string): string | null => {
  const m = METADATA_KEY.exec(param);
  return m ? (m[1] ?? m[2] ?? '') : null;
};
const METADATA_KEY_MAX = 64;
const METADATA_VALUE_MAX = 500;

/**
 * The filters of GET /monitors and GET /monitors/counts, combined with AND. `status` is the status the record shows:
 * `paused` (disabled), `maintenance` (enabled, its component under a window in progress), else the last check state
 * (`pending`, `up`, `degraded`, `down`).
 */
export const monitorFilterShape = {
  status: commaListQueryParam(MONITOR_STATUSES).optional(),
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
};

/**
 * A query schema of the monitor filters and more (`base`): strict but for the `metadata.<key>` parameters (any
 * number, each key once), the one open-ended part, judged here.
 */
export function withMonitorFilters<S extends z.ZodRawShape>(base: z.ZodObject<S>) {
  const shape = base.extend(monitorFilterShape);
  const known = new Set(Object.keys(shape.shape));
  return shape.loose().superRefine(
    (query, ctx) => {
      // Metadata key -> the parameter that gave it first: `metadata.env` and `metadata[env]` are one filter, so both
      // given (like one parameter given twice) is 400, not an AND of two values that matches nothing.
      const given = new Map<string, string>();
      for (const [key, value] of Object.entries(query)) {
        if (known.has(key)) continue;
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
        if (typeof value !== 'string')
          ctx.addIssue({ code: 'custom', path: [key], message: 'was given more than once' });
        else if (value.length > METADATA_VALUE_MAX)
          ctx.addIssue({ code: 'custom', path: [key], message: `must be at most ${METADATA_VALUE_MAX} characters` });
      }
      // Also when a filter failed: one 400 names every offending parameter.
    },
    { when: () => true },
  );
}

/** What the filters read: the fields of monitorFilterShape, and `metadata.<key>` parameters as loose keys. */
export type MonitorFilters = z.output<z.ZodObject<typeof monitorFilterShape>> & Record<string, unknown>;

/**
 * The components under a maintenance window in progress: every one (`all`, a window without components), or those
 * listed. What `status=maintenance` (and the check statuses, which exclude it) filter on.
 */
export interface MaintenanceCover {
  all: boolean;
  componentIds: string[];
}

export function maintenanceCoverOf(windows: readonly CoverageWindow[], now: Date): MaintenanceCover {
  const inProgress = windows.filter((w) => windowInProgress(w, now));
  return {
    all: inProgress.some((w) => w.componentIds.length === 0),
    componentIds: [...new Set(inProgress.flatMap((w) => w.componentIds))],
  };
}

/** Whether a status filter needs the maintenance cover (every status but `paused` depends on it). */
export const needsCover = (filters: Pick<MonitorFilters, 'status'>) => !!filters.status?.some((s) => s !== 'paused');

/** The records' statuses as conditions on the columns (a status the cover says nothing can show: no row). */
function statusCondition(status: (typeof MONITOR_STATUSES)[number], cover: MaintenanceCover): Prisma.MonitorWhereInput {
  const covered: Prisma.MonitorWhereInput = cover.all ? {} : { componentId: { in: cover.componentIds } };
  const nothing: Prisma.MonitorWhereInput = { id: { in: [] } };
  if (status === 'paused') return { enabled: false };
  if (status === 'maintenance') return cover.all || cover.componentIds.length ? { enabled: true, ...covered } : nothing;
  if (cover.all) return nothing;
  return {
    enabled: true,
    status,
    ...(cover.componentIds.length ? { componentId: { notIn: cover.componentIds } } : {}),
  };
}

/**
 * The filters as a Prisma condition, always within the caller's workspace. `cover` is needed when `status` is given
 * (needsCover): the status a record shows depends on the maintenance in progress.
 */
export function monitorFilterWhere(
  workspaceId: string,
  query: MonitorFilters,
  cover: MaintenanceCover | null,
): Prisma.MonitorWhereInput {
  const and: Prisma.MonitorWhereInput[] = [];
  if (query.status) {
    const c = cover ?? { all: false, componentIds: [] };
    and.push({ OR: query.status.map((s) => statusCondition(s, c)) });
  }
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

/**
 * Whether monitorFilterWhere's `where` narrows the workspace's monitors (a filter was given): without one, the
 * list's page, the sorts' keys and the status counts read through their hot statements on the workspace (ADR 0021).
 */
export function narrowsMonitors(where: Prisma.MonitorWhereInput): boolean {
  return where.AND !== undefined;
}
