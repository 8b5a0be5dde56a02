import { z } from 'zod';

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const PLANS = ['free', 'solo', 'team', 'business'] as const;
export type PlanName = (typeof PLANS)[number];

/**
 * `page` 1-indexed (default 1), `perPage` 1 to 250 (default 25). Unknown query parameters are refused. A page past
 * the end is an empty page, however far: any page up to Number.MAX_SAFE_INTEGER is accepted, whose OFFSET
 * ((page - 1) * perPage, below 2^61) fits PostgreSQL's bigint; beyond that the number is not exact, so 400.
 */
export const paginationQuerySchema = z
  .object({
    page: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
    perPage: z.coerce.number().int().min(1).max(250).default(25),
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
