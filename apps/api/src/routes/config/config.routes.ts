import { z } from '../../schemas/zod.js';
import { applyConfig } from '../../services/config/apply-config.js';
import { managedMonitorFields, refSchema, statusPageEntrySchema } from '../../services/config/config-document.js';
import { getConfig } from '../../services/config/get-config.js';
import { planConfig } from '../../services/config/plan-config.js';
import { defineRoute } from '../define-route.js';

const ACTIONS = ['create', 'update', 'delete', 'noop'] as const;

const configDocumentFields = {
  version: z.literal(1),
  prune: z
    .boolean()
    .optional()
    .openapi({ description: 'true: managed resources the document no longer names are deleted. Default false.' }),
  // Described, not restated: an allOf of the strict create schemas and these two fields would admit no object.
  monitors: z
    .array(
      managedMonitorFields.catchall(z.unknown()).openapi('ConfigMonitor', {
        description:
          'A monitor body as POST /monitors takes it (`CreateMonitorInput`: the same fields, defaults and rules), with its ' +
          '`ref` and optionally `escalationPolicy`.',
      }),
    )
    .optional(),
  escalationPolicies: z
    .array(z.object({ ref: refSchema }).catchall(z.unknown()))
    .optional()
    .openapi({ description: 'Escalation policies as POST /escalation-policies takes them, each with its `ref`.' }),
  statusPages: z.array(statusPageEntrySchema).optional(),
};

const configDocumentSchema = z
  .object(configDocumentFields)
  .strict()
  .openapi('ConfigDocument', {
    description:
      'A workspace document. Fields a monitor leaves out take their create defaults; `"<redacted>"` as a secret (a ' +
      'header value, a body) keeps the stored value, as does `"<unreadable>"` (what the export shows for a secret no ' +
      'configured key decrypts: it cannot be kept, so both are a 400 at their path there).',
  });
const applyInputSchema = z
  .object({
    ...configDocumentFields,
    planId: z.string().max(100).optional().openapi({
      description: "A plan's `planId`: 409 if the document or any resource that plan compared changed since.",
    }),
  })
  .strict()
  .openapi('ConfigApplyInput');

const configChangeSchema = z
  .object({
    action: z.enum(ACTIONS),
    resourceType: z.enum(['monitor', 'escalation_policy', 'status_page']),
    ref: z.string(),
    id: z.uuid().nullable().openapi({ description: 'null for a create in a plan.' }),
    fields: z
      .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
      .optional()
      .openapi({ description: 'create and update: each field written, from its stored value (secrets "<redacted>").' }),
  })
  .openapi('ConfigChange');

const configPlanSchema = z
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

/** Monitoring as code: a workspace document (the service judges it: one 400 names every problem at its path). */
const judgedByTheService = z.unknown();

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
        schema: judgedByTheService,
        documented: configDocumentSchema,
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
    request: { body: { schema: judgedByTheService, documented: applyInputSchema, yaml: true } },
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
