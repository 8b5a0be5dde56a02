import {
  commaListQueryParam,
  MONITOR_TYPES,
  paginationQuerySchema,
  singleQueryValue,
  uuidInputSchema,
  type Prisma,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';

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
/**
 * The filters of GET /monitors with more query parameters (`extra`): strict but for the `metadata.<key>` parameters
 * (judged here). GET /reports/uptime takes the same filters beside its own.
 */
export function withMonitorFilters<S extends z.core.$ZodLooseShape>(extra: S) {
  const shape = filters.extend(extra);
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
export const monitorListQuerySchema = withMonitorFilters({});
export type MonitorListQuery = z.output<typeof monitorListQuerySchema>;

/** The filters as a Prisma condition, always within the caller's workspace. */
export function monitorFilterWhere(workspaceId: string, query: MonitorListQuery): Prisma.MonitorWhereInput {
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
