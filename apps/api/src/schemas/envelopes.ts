/**
 * The envelope parts every answer shares: the error envelope (the `Error` component) and a list's pagination.
 * Records are described next to their mappers (services/<resource>/*-record.ts), which are typed by them.
 */
import { ERROR_CODES, MAINTENANCE_ACTIONS, MAINTENANCE_STATUSES } from '@statusvane/shared';
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

/**
 * Every `details` key the API sends, and when. A new one is declared here (test/typed-client.test.ts checks that
 * each answer's details parse against this object made strict, and compiles a client that reads every key).
 */
export const errorDetailsSchema = z
  .object({
    issues: z
      .array(issueSchema)
      .optional()
      .openapi({ description: 'For invalid input (400): one entry per offending field.' }),
    workspaces: z.array(workspaceChoiceSchema).optional().openapi({
      description:
        'For a personal token in several workspaces sent without `X-Statusvane-Workspace` (400): the choices.',
    }),
    status: z.enum(MAINTENANCE_STATUSES).optional().openapi({
      description:
        "For a maintenance window's 409: its current status (a `completed` or `cancelled` window can no longer be edited).",
    }),
    action: z.enum(MAINTENANCE_ACTIONS).optional().openapi({
      description: "For a maintenance window's 409 on an action: the action refused from `status`.",
    }),
    slug: z
      .string()
      .optional()
      .openapi({ description: "For a status page's 409: the slug the `vanityUrl` normalised to." }),
    reason: z
      .enum(['reserved', 'taken', 'last_owner', 'already_member', 'password_set', 'mail_not_configured'])
      .optional()
      .openapi({
        description:
          "For a status page's 409 with `slug`: `reserved` (never allowed) or `taken` (another page has it). For a member's " +
          '409: `last_owner` (the last owner can be neither demoted nor removed) or `already_member` (POST /members); for ' +
          'an invitation (POST /members/{userId}/invitation): `password_set` (they have a password) or ' +
          '`mail_not_configured` (no SMTP_URL).',
      }),
    monitors: z.array(z.uuid()).optional().openapi({
      description: "For a secret's 409 on DELETE: the monitors that still name it.",
    }),
    version: z.number().int().min(1).optional().openapi({
      description: 'For a 412 (`precondition_failed`): the version the record is at now.',
    }),
  })
  .openapi('ErrorDetails');

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).openapi({
        description:
          'invalid_request 400 (413 for a body over 256 KiB, 405 for a method a path does not take), unauthorized 401, forbidden 403, not_found 404, ' +
          'conflict 409, precondition_failed 412, rate_limited 429, internal 500 (503 when a dependency is unavailable: safe to retry).',
      }),
      message: z.string().openapi({ description: 'A human-readable explanation; do not parse it.' }),
      details: errorDetailsSchema
        .optional()
        .openapi({ description: 'Structured details, for the errors that have them: each key says when it appears.' }),
    }),
  })
  .openapi('Error', { description: 'Every error response has this shape.' });
