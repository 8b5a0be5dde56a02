import {
  GRANULARITIES,
  isTimezone,
  singleQueryValue,
  startOfLocal,
  startOfLocalDate,
  ValidationError,
  type Granularity,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';

/** How far back a report reaches: 400 days (beyond-the-seed §8), from the start of that local day. */
export const MAX_DAYS_BACK = 400;
/** Periods a report has when `from` is not given, ending with the current one. */
const DEFAULT_PERIODS: Record<Granularity, number> = { day: 30, week: 12, month: 12 };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** The query parameters every uptime answer takes (GET /monitors/{id}/uptime, GET /reports/uptime). */
export const rangeQueryShape = {
  from: singleQueryValue(z.string().max(40))
    .optional()
    .openapi({
      description:
        'Start: a date `YYYY-MM-DD` (its local midnight in `timezone`) or an RFC 3339 instant. At most 400 days back. ' +
        'Default: the start of the period 29 days (granularity day), 11 weeks or 11 months before the current one.',
    }),
  to: singleQueryValue(z.string().max(40))
    .optional()
    .openapi({
      description:
        'End, exclusive: a date (its local midnight: `to=2026-04-01` ends with 31 March) or an RFC 3339 instant. ' +
        'Default, and at most: now (figures stop at the moment of the request).',
    }),
  granularity: singleQueryValue(z.enum(GRANULARITIES))
    .default('day')
    .openapi({ description: 'Periods: local calendar days, ISO weeks (Monday to Monday) or calendar months.' }),
  timezone: singleQueryValue(z.string().max(64))
    .optional()
    .openapi({ description: "An IANA timezone (`Europe/Berlin`). Default: the accounting policy's." }),
};

export interface ReportRange {
  /** ms since the epoch, whole seconds. */
  from: number;
  to: number;
  granularity: Granularity;
  timezone: string;
}

/**
 * The range a query asks for, judged: `from` and `to` parsed in the timezone (instants rounded up to the second, as
 * accounting counts whole seconds), `to` cut at `now`; 400 naming every problem (an unknown timezone, a value that is
 * neither a date nor an instant, `from` not before `to`, `from` more than 400 days back).
 */
export function judgeRange(
  query: {
    from?: string | undefined;
    to?: string | undefined;
    granularity: Granularity;
    timezone?: string | undefined;
  },
  defaults: { timezone: string; now: Date },
): ReportRange {
  const issues: Array<{ path: string; message: string }> = [];
  const timezone = query.timezone ?? defaults.timezone;
  if (!isTimezone(timezone)) {
    issues.push({ path: 'timezone', message: 'must be an IANA timezone such as Europe/Berlin or UTC' });
    throw new ValidationError('Invalid request: timezone', issues);
  }
  const now = Math.floor(defaults.now.getTime() / 1000) * 1000;
  const parse = (name: 'from' | 'to', value: string): number | null => {
    const at = DATE.test(value) ? startOfLocalDate(value, timezone) : INSTANT.test(value) ? Date.parse(value) : NaN;
    if (at === null || !Number.isFinite(at)) {
      issues.push({ path: name, message: 'must be a date (YYYY-MM-DD) or an RFC 3339 instant' });
      return null;
    }
    return Math.ceil(at / 1000) * 1000;
  };
  const given = {
    from: query.from === undefined ? undefined : parse('from', query.from),
    to: query.to === undefined ? undefined : parse('to', query.to),
  };
  const to = Math.min(given.to ?? now, now);
  const from =
    given.from ?? startOfLocal(to - 1, timezone, query.granularity, -(DEFAULT_PERIODS[query.granularity] - 1));
  const earliest = startOfLocal(now, timezone, 'day', -MAX_DAYS_BACK);
  if (given.from !== null && given.to !== null) {
    if (given.to !== undefined && from >= given.to) issues.push({ path: 'from', message: 'must be before `to`' });
    else if (from >= now) issues.push({ path: 'from', message: 'must be in the past' });
    if (from < earliest)
      issues.push({
        path: 'from',
        message: `must be at most ${MAX_DAYS_BACK} days back (from ${new Date(earliest).toISOString()})`,
      });
  }
  if (issues.length) throw new ValidationError(`Invalid request: ${issues.map((i) => i.path).join(', ')}`, issues);
  return { from: Math.max(from, earliest), to, granularity: query.granularity, timezone };
}

/** `monitorIds`: a comma list of monitor ids (GET /reports/uptime). */
export const monitorIdsParam = singleQueryValue(
  z
    .string()
    .transform((s) => s.split(','))
    .pipe(z.array(z.uuid()).min(1).max(1000)),
).openapi({ type: 'string', description: 'A comma-separated list of monitor ids (at most 1,000).' });

export type RangeQuery = z.output<z.ZodObject<typeof rangeQueryShape>>;
