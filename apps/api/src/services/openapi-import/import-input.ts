import { headersSchema, httpTargetSchema, MONITOR_LIMITS } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';

/** Limits of an OpenAPI import (spec section 9). */
export const IMPORT_LIMITS = { documentMaxBytes: 5 * 1024 * 1024, includeMax: 500, nameMax: 40 } as const;

/** POST /monitors/import/openapi: a document inline (an object, or its YAML or JSON text) or fetched from a URL. */
export const importOpenApiSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/, 'must be 1 to 40 of a-z, 0-9 and "-"')
      .openapi({ description: "Names the import: its monitors' refs are `openapi.<name>.<operationId>`." }),
    document: z
      .union([z.record(z.string(), z.unknown()), z.string().max(IMPORT_LIMITS.documentMaxBytes)])
      .optional()
      .openapi({ description: 'The OpenAPI 3.0 or 3.1 document: an object, or its YAML or JSON text.' }),
    documentUrl: httpTargetSchema.optional().meta({
      description: 'Where to fetch the document instead (SSRF-guarded, no redirects, at most 5 MiB).',
    }),
    baseUrl: httpTargetSchema.meta({
      description: "Prefixed to every path of the document: the monitors' targets.",
      example: 'https://api.example.com/v1',
    }),
    include: z
      .array(z.string().min(1).max(300))
      .max(IMPORT_LIMITS.includeMax)
      .optional()
      .openapi({ description: 'Only these operations: operationIds or `GET /path`.' }),
    headers: headersSchema
      .optional()
      .meta({ description: 'Sent by every monitor; values may use `{{secrets.NAME}}`. Write-only.' }),
    intervalSeconds: z.number().int().min(MONITOR_LIMITS.intervalMin).max(MONITOR_LIMITS.intervalMax).optional(),
    regions: z.array(z.string().min(1).max(64)).max(50).optional(),
    apply: z
      .boolean()
      .default(false)
      .openapi({ description: 'true (admins and owners): apply the plan in one transaction. Default: only plan.' }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.document === undefined) === (v.documentUrl === undefined))
      ctx.addIssue({ code: 'custom', path: ['document'], message: 'give exactly one of document and documentUrl' });
  })
  .openapi('ImportOpenApiInput');
export type ImportOpenApiInput = z.output<typeof importOpenApiSchema>;
