/**
 * The workspace document of monitoring as code: its schema (the one POST /config/plan and /config/apply parse and
 * the OpenAPI document shows) and the types the config verbs read it into. The bottom of services/config: it imports
 * none of its neighbours, which all import it.
 */
import {
  layoutSectionInputSchema,
  slugInputSchema,
  STATUS_PAGE_LIMITS,
  statusPageBrandingFields,
  statusPageNameSchema,
  type CreateMonitorInput,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { accountingSettingsInputSchema, type AccountingSettingsInput } from '../settings/accounting-settings-record.js';
import type { CreateEscalationPolicyInput } from '../escalation-policies/policy-input.js';
import type { CreateScheduleInput } from '../schedules/schedule-input.js';

export const CONFIG_LIMITS = {
  refMax: 100,
  monitorsMax: 5000,
  statusPagesMax: 200,
  policiesMax: 200,
  schedulesMax: 200,
} as const;

/** `ref`: 1..100 characters, `[a-z0-9][a-z0-9_.-]*`. */
export const refSchema = z
  .string()
  .min(1)
  .max(CONFIG_LIMITS.refMax)
  .regex(
    /^[a-z0-9][a-z0-9_.-]*$/,
    'must be lower-case letters, digits, "_", "." or "-", starting with a letter or digit',
  )
  .openapi({ description: 'The name the document manages the resource by: unique per type in the workspace.' });

/** What a document adds to a monitor body of POST /monitors. */
export const managedMonitorFields = z
  .object({
    ref: refSchema,
    escalationPolicy: refSchema.nullable().optional().openapi({
      description: "The `ref` of one of the document's escalation policies; omitted: the workspace default applies.",
    }),
  })
  .strict();

/** An entry that is not an object is named so; what it holds besides its `ref` is judged by its kind's own rules. */
const entryError = {
  error: (iss: { code: string }) => (iss.code === 'invalid_type' ? 'must be an object' : undefined),
};

/**
 * A monitor of a document: the body of POST /monitors (judged by its validator, config-document.ts), with its `ref`
 * and optionally `escalationPolicy`. Described, not restated: an allOf of the strict create schemas and these two
 * fields would admit no object.
 */
const configMonitorSchema = z
  .object(managedMonitorFields.shape, entryError)
  .catchall(z.unknown())
  .openapi('ConfigMonitor', {
    description:
      'A monitor body as POST /monitors takes it (`CreateMonitorInput`: the same fields, defaults and rules), with its ' +
      '`ref` and optionally `escalationPolicy`.',
  });

/** An escalation policy of a document: the body of POST /escalation-policies (judged by its schema) and its `ref`. */
const configPolicySchema = z.object({ ref: refSchema }, entryError).catchall(z.unknown());

/** An on-call schedule of a document: the body of POST /schedules (judged by its schema) and its `ref`. */
const configScheduleSchema = z.object({ ref: refSchema }, entryError).catchall(z.unknown());

const statusPageSectionSchema = layoutSectionInputSchema
  .omit({ componentIds: true })
  .extend({ monitors: z.array(refSchema).max(500).openapi({ description: "Refs of the document's monitors." }) })
  .strict();

/** A status page in a document: the page, its slug (normalised like `vanityUrl`) and its whole layout. */
export const statusPageEntrySchema = z
  .object({
    ref: refSchema,
    name: statusPageNameSchema,
    slug: slugInputSchema, // normalised as `vanityUrl` is on create; reserved: 400; taken: 409
    isPublic: z.boolean().default(true),
    sections: z.array(statusPageSectionSchema).max(STATUS_PAGE_LIMITS.sectionsMax).default([]),
    // Branding as PATCH /status-pages takes it; left out: none (null), like every field a document does not state.
    logoUrl: statusPageBrandingFields.logoUrl.optional(),
    faviconUrl: statusPageBrandingFields.faviconUrl.optional(),
    brandColor: statusPageBrandingFields.brandColor.optional(),
    websiteUrl: statusPageBrandingFields.websiteUrl.optional(),
  })
  .strict();

const documentFields = {
  version: z.literal(1),
  prune: z
    .boolean()
    .optional()
    .openapi({ description: 'true: managed resources the document no longer names are deleted. Default false.' }),
  monitors: z.array(configMonitorSchema).max(CONFIG_LIMITS.monitorsMax).optional(),
  escalationPolicies: z
    .array(configPolicySchema)
    .max(CONFIG_LIMITS.policiesMax)
    .optional()
    .openapi({ description: 'Escalation policies as POST /escalation-policies takes them, each with its `ref`.' }),
  statusPages: z.array(statusPageEntrySchema).max(CONFIG_LIMITS.statusPagesMax).optional(),
  schedules: z
    .array(configScheduleSchema)
    .max(CONFIG_LIMITS.schedulesMax)
    .optional()
    .openapi({
      description:
        'On-call schedules as POST /schedules takes them, each with its `ref` (members and the fallback by user id). A ' +
        "policy step pages one by the schedule's id; overrides are not part of the document.",
    }),
  // Described by its component (PUT /settings/accounting's body too) and in DOCUMENT_DESCRIPTION: a description here
  // would replace the shared component's.
  accounting: accountingSettingsInputSchema.optional(),
};

const DOCUMENT_DESCRIPTION =
  'A workspace document. Fields a monitor leaves out take their create defaults; `"<redacted>"` as a secret (a ' +
  'header value, a body) keeps the stored value, as does `"<unreadable>"` (what the export shows for a secret no ' +
  'configured key decrypts: it cannot be kept, so both are a 400 at their path there). `accounting` is the uptime ' +
  'accounting policy as PUT /settings/accounting takes it (fields left out take their defaults); a document without ' +
  'it leaves the policy alone.';

/** POST /config/plan's body and GET /config's answer. */
export const configDocumentSchema = z
  .object(documentFields)
  .strict()
  .openapi('ConfigDocument', { description: DOCUMENT_DESCRIPTION });
export type ConfigDocumentInput = z.output<typeof configDocumentSchema>;

const PLAN_ID = 'must be the planId of a plan (a string)';

/** POST /config/apply's body: a document and, first (its issue is named first), the plan it was read in. */
export const configApplySchema = z
  .object({
    planId: z.string({ error: PLAN_ID }).max(100, PLAN_ID).optional().openapi({
      description: "A plan's `planId`: 409 if the document or any resource that plan compared changed since.",
    }),
    ...documentFields,
  })
  .strict()
  .openapi('ConfigApplyInput');
export type ConfigApplyInput = z.output<typeof configApplySchema>;

/** A resource as the document sees it: field -> value, every field of its kind present (defaults filled in). */
export type View = Record<string, unknown>;

/** Where a policy entry said `"<redacted>"` or `"<unreadable>"` (`steps[i].targets[j]`), and which. */
export type RedactedTargets = Map<string, string>;

export interface DesiredMonitor {
  index: number;
  ref: string;
  input: CreateMonitorInput;
  /** undefined: the document leaves the monitor's policy alone. */
  escalationPolicy?: string | null | undefined;
}
export type DesiredStatusPage = z.output<typeof statusPageEntrySchema> & { index: number };
export interface DesiredPolicy {
  index: number;
  ref: string;
  /** The body of POST /escalation-policies, parsed by its schema. */
  input: CreateEscalationPolicyInput;
  /** Where the entry said `"<redacted>"` (the stored target stays). */
  redacted: RedactedTargets;
}

export interface DesiredSchedule {
  index: number;
  ref: string;
  /** The body of POST /schedules, parsed by its schema. */
  input: CreateScheduleInput;
}

/** A document read: every entry judged by its kind's rules, every ref resolved within the document. */
export interface ConfigDocument {
  prune: boolean;
  /**
   * With `prune`: only managed monitors whose ref starts with this are deleted, and no policy or page (an OpenAPI
   * import prunes only the monitors of that import, `openapi.<name>.`).
   */
  pruneRefPrefix?: string;
  /** null: the document leaves the accounting policy alone. */
  accounting: AccountingSettingsInput | null;
  monitors: DesiredMonitor[];
  escalationPolicies: DesiredPolicy[];
  statusPages: DesiredStatusPage[];
  schedules: DesiredSchedule[];
}
