/**
 * The envelope parts every answer shares: the error envelope (the `Error` component) and a list's pagination.
 * Records are described next to their mappers (services/<resource>/*-record.ts), which are typed by them.
 */
import { ERROR_CODES } from '@statusvane/shared';
import { z } from './zod.js';

export const paginationSchema = z
  .object({
    page: z.number().int().min(1).openapi({ description: 'The page returned, 1-indexed.' }),
    perPage: z.number().int().min(1).max(250).openapi({ description: 'Items per page.' }),
    total: z.number().int().min(0).openapi({ description: 'All matching items, across every page.' }),
    totalPages: z.number().int().min(0).openapi({ description: '`ceil(total / perPage)`; 0 when `total` is 0.' }),
  })
  .openapi('Pagination', {
    description: 'In every list response. A page past the end returns `data: []` with correct pagination.',
  });

const issueSchema = z
  .object({
    path: z.string().openapi({ description: 'The offending field, as `a.b[0].c`; empty for the body as a whole.' }),
    message: z.string(),
  })
  .openapi('ValidationIssue');

const workspaceChoiceSchema = z.object({ id: z.uuid(), slug: z.string(), name: z.string() }).openapi('WorkspaceChoice');

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).openapi({
        description:
          'invalid_request 400 (413 for a body over 256 KiB), unauthorized 401, forbidden 403, not_found 404, ' +
          'conflict 409, rate_limited 429, internal 500 (503 when a dependency is unavailable: safe to retry).',
      }),
      message: z.string().openapi({ description: 'A human-readable explanation; do not parse it.' }),
      details: z
        .object({
          issues: z
            .array(issueSchema)
            .optional()
            .openapi({ description: 'For invalid input: one entry per offending field.' }),
          workspaces: z.array(workspaceChoiceSchema).optional().openapi({
            description:
              'For a personal token in several workspaces sent without `X-Statusvane-Workspace`: the choices.',
          }),
        })
        .optional()
        .openapi({ description: 'Optional structured details; other keys may appear.' }),
    }),
  })
  .openapi('Error', { description: 'Every error response has this shape.' });
