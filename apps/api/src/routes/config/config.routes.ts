import { z } from '../../schemas/zod.js';
import { applyConfig } from '../../services/config/apply-config.js';
import { configApplyChecks, configDocumentChecks } from '../../services/config/config-document.js';
import { configApplySchema, configDocumentSchema } from '../../services/config/config-schema.js';
import { getConfig } from '../../services/config/get-config.js';
import { planConfig } from '../../services/config/plan-config.js';
import { defineRoute } from '../define-route.js';

const ACTIONS = ['create', 'update', 'delete', 'noop'] as const;

const configChangeSchema = z
  .object({
    action: z.enum(ACTIONS),
    resourceType: z.enum(['monitor', 'escalation_policy', 'status_page', 'accounting_policy', 'schedule']),
    ref: z.string(),
    id: z.uuid().nullable().openapi({ description: 'null for a create in a plan.' }),
    fields: z
      .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
      .optional()
      .openapi({ description: 'create and update: each field written, from its stored value (secrets "<redacted>").' }),
  })
  .openapi('ConfigChange');

export const configPlanSchema = z
  .object({
    planId: z.string(),
    changes: z.array(configChangeSchema),
    summary: z.object({
      create: z.number().int(),
      update: z.number().int(),
      delete: z.number().int(),
      noop: z.number().int(),
    }),
  })
  .openapi('ConfigPlan');

const example = {
  version: 1,
  monitors: [
    { ref: 'api', name: 'API', type: 'http', target: 'https://api.example.com/health' },
    { ref: 'nightly-backup', name: 'Nightly backup', type: 'heartbeat', schedule: '0 3 * * *', graceSeconds: 900 },
  ],
  statusPages: [
    { ref: 'public', name: 'Example status', slug: 'example', sections: [{ name: 'Core', monitors: ['api'] }] },
  ],
};

export const configRoutes = [
  defineRoute({
    method: 'post',
    path: '/config/plan',
    operationId: 'planConfig',
    roles: 'config:apply',
    tag: 'Configuration',
    summary: 'Plan a workspace document',
    description:
      'What applying the document would do, resource by resource (`create`, `update` with each field from and to, ' +
      '`delete` with `prune`, `noop`). Nothing is written. The body is JSON, or YAML with `Content-Type: ' +
      'application/yaml`. Every problem of the document is one 400 naming its path (`monitors[3].target`); a slug ' +
      'another page holds is 409.',
    request: {
      body: {
        schema: configDocumentSchema,
        checks: configDocumentChecks,
        yaml: true,
        examples: { doc: { summary: 'A small workspace', value: example } },
      },
    },
    responses: {
      200: { description: 'The plan.', data: configPlanSchema },
      409: {
        description: 'a status page slug of the document is taken by another page.',
        example: 'The slug "acme" is already taken',
      },
    },
    handler: (deps, { ctx, body }) => planConfig(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'post',
    path: '/config/apply',
    operationId: 'applyConfig',
    roles: 'config:apply',
    tag: 'Configuration',
    summary: 'Apply a workspace document',
    description:
      'Plans the document again and applies every change in one transaction: all or nothing. Applying the same document ' +
      'twice: the second answer has only `noop`. With `planId`, a document or a compared resource that changed since ' +
      'that plan is 409 and nothing is written. `prune: true` deletes managed resources the document no longer names; ' +
      'resources without a `ref` are never touched. Answers like plan, with the ids of created resources.',
    request: { body: { schema: configApplySchema, checks: configApplyChecks, yaml: true } },
    responses: {
      200: { description: 'What was applied.', data: configPlanSchema },
      409: {
        description: 'the workspace or the document changed since `planId`, or a slug is taken by another page.',
        example: 'The workspace changed since plan 3f9c0a1b2c3d4e5f6a7b8c9d0e1f2a3b: plan again',
      },
    },
    handler: (deps, { ctx, body }) => applyConfig(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/config',
    operationId: 'getConfig',
    roles: 'read',
    tag: 'Configuration',
    summary: 'Export the workspace document',
    description:
      'The managed resources (those with a `ref`) as a document: defaults left out, secrets `"<redacted>"` (read back as ' +
      '"unchanged"). Planning it gives only `noop`. A secret no configured encryption key opens shows `"<unreadable>"` ' +
      "(a monitor's whole `headers`, its `body`, an escalation target's fields): give its value again to mend it.",
    responses: { 200: { description: 'The document.', data: configDocumentSchema } },
    // The entries are built field by field from stored rows (monitor-views.ts) in the shape the create schemas take;
    // planning the answer back (test/config.test.ts) is what proves it matches.
    handler: async (deps, { ctx }) => (await getConfig(deps, { ctx })) as z.infer<typeof configDocumentSchema>,
  }),
];
