import { z } from 'zod';

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const PLANS = ['free', 'solo', 'team', 'business'] as const;
export type PlanName = (typeof PLANS)[number];

/**
 * A whole number written in decimal digits only, from a string (a query parameter, an environment variable):
 * `z.coerce.number()` would take '' and ' ' for 0, and '1e2', '0x10', '1_0' or 'Infinity' as numbers. A number too
 * long to be exact fails `max`.
 */
export const decimalInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/**
 * One query parameter, given once: the query parser turns `page=1&page=2` into an array, which is refused by name
 * rather than judged as a value ("received NaN").
 */
export function singleQueryValue<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (!Array.isArray(value)) return value;
    ctx.issues.push({ code: 'custom', message: 'was given more than once', input: value });
    return z.NEVER;
  }, schema);
}

/**
 * An integer query parameter: decimal digits, given once, `defaultValue` when absent. Documented as the integer it
 * is (zod-to-openapi reads Zod's metadata; it would otherwise show the string with its pattern).
 */
export const integerQueryParam = (min: number, max: number, defaultValue: number) =>
  singleQueryValue(decimalInteger(min, max))
    .default(defaultValue)
    .meta({ type: 'integer', minimum: min, maximum: max, default: defaultValue });

/**
 * A filter given as a comma list of known values (`status=up,down`), once: each item must be one of `values`
 * (named by its position, `status[1]`), duplicates are harmless. Documented as the string it is.
 */
export function commaListQueryParam<const V extends readonly [string, ...string[]]>(values: V) {
  return singleQueryValue(
    z
      .string()
      .transform((s) => s.split(','))
      .pipe(z.array(z.enum(values)).min(1)),
  ).meta({ type: 'string', description: `A comma-separated list of: ${values.join(', ')}.` });
}

/**
 * `page` 1-indexed (default 1), `perPage` 1 to 250 (default 25). Unknown query parameters are refused. A page past
 * the end is an empty page, however far: any page up to Number.MAX_SAFE_INTEGER is accepted, whose OFFSET
 * ((page - 1) * perPage, below 2^61) fits PostgreSQL's bigint; beyond that the number is not exact, so 400.
 */
export const paginationQuerySchema = z
  .object({
    page: integerQueryParam(1, Number.MAX_SAFE_INTEGER, 1),
    perPage: integerQueryParam(1, 250, 25),
  })
  .strict();
export type PaginationQuery = z.infer<typeof paginationQuerySchema>;

export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

export function pagination(q: PaginationQuery, total: number): Pagination {
  return { page: q.page, perPage: q.perPage, total, totalPages: Math.ceil(total / q.perPage) };
}

export const uuidSchema = z.uuid();
