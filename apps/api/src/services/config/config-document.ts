import {
  layoutSectionInputSchema,
  RESERVED_SLUGS,
  slugInputSchema,
  STATUS_PAGE_LIMITS,
  ValidationError,
  issuesFromZod,
  type CreateMonitorInput,
  type Issue,
  statusPageNameSchema,
} from '@statusvane/shared';
import { z } from '../../openapi/zod.js';
import { createEscalationPolicySchema, type CreateEscalationPolicyInput } from '../escalation-policies/policy-input.js';
import { validateCreateInput } from '../monitors/monitor-validation.js';
import { failWith, isObject } from '../validation.js';
import { withPlaceholders, type RedactedTargets } from './policy-views.js';
import { UNREADABLE } from './unreadable.js';

export const CONFIG_LIMITS = { refMax: 100, monitorsMax: 5000, statusPagesMax: 200, policiesMax: 200 } as const;

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

/** The document's top level; each entry is judged by the API's own schema for its kind (below). */
const documentShape = z
  .object({
    version: z.literal(1),
    prune: z.boolean().optional(),
    monitors: z.array(z.unknown()).max(CONFIG_LIMITS.monitorsMax).optional(),
    escalationPolicies: z.array(z.unknown()).max(CONFIG_LIMITS.policiesMax).optional(),
    statusPages: z.array(z.unknown()).max(CONFIG_LIMITS.statusPagesMax).optional(),
  })
  .strict();

/** What a document adds to a monitor body of POST /monitors. */
export const managedMonitorFields = z
  .object({
    ref: refSchema,
    escalationPolicy: refSchema.nullable().optional().openapi({
      description: "The `ref` of one of the document's escalation policies; omitted: the workspace default applies.",
    }),
  })
  .strict();

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
  })
  .strict();

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

export interface ConfigDocument {
  prune: boolean;
  monitors: DesiredMonitor[];
  escalationPolicies: DesiredPolicy[];
  statusPages: DesiredStatusPage[];
}

const prefixed = (prefix: string, issues: Issue[]) =>
  issues.map((i) => ({ ...i, path: i.path ? `${prefix}.${i.path}` : prefix }));

/** Issues on the entries' refs: well-formed and unique per type. */
function refIssues(kind: string, entries: unknown[], issues: Issue[]): Map<string, number> {
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (!isObject(entry)) return;
    const ref = refSchema.safeParse(entry.ref);
    if (!ref.success) {
      issues.push(...prefixed(`${kind}[${i}].ref`, issuesFromZod(ref.error)));
      return;
    }
    const first = seen.get(ref.data);
    if (first !== undefined)
      issues.push({ path: `${kind}[${i}].ref`, message: `duplicate ref "${ref.data}" (also ${kind}[${first}])` });
    else seen.set(ref.data, i);
  });
  return seen;
}

/**
 * Reads a workspace document: the top level, then every entry with the API's own schema for its kind (monitors with
 * the POST /monitors validator, without its network checks; status pages with the status page rules), refs unique
 * per type and every reference to a ref of the document. One 400 lists every problem, each at its path in the
 * document (`monitors[3].target`).
 */
export async function parseConfigDocument(raw: unknown, checkRegions: readonly string[]): Promise<ConfigDocument> {
  const top = documentShape.safeParse(raw);
  if (!top.success) fail(issuesFromZod(top.error));
  const doc = top.data;
  const issues: Issue[] = [];
  const rawMonitors = doc.monitors ?? [];
  const rawPolicies = doc.escalationPolicies ?? [];
  const rawPages = doc.statusPages ?? [];
  const monitorRefs = refIssues('monitors', rawMonitors, issues);
  const policyRefs = refIssues('escalationPolicies', rawPolicies, issues);
  refIssues('statusPages', rawPages, issues);

  const monitors: DesiredMonitor[] = [];
  for (const [index, entry] of rawMonitors.entries()) {
    const path = `monitors[${index}]`;
    if (!isObject(entry)) {
      issues.push({ path, message: 'must be an object' });
      continue;
    }
    const { ref, escalationPolicy, ...fields } = entry;
    // `headers: "<unreadable>"` (an export's headers that could not be decrypted) stands for the stored headers: judged
    // by desiredMonitorView, not by the create schema (which wants an object).
    const { headers, ...rest } = fields;
    const keepsHeaders = headers === UNREADABLE && fields.type === 'http';
    const body = keepsHeaders ? rest : fields;
    const managed = managedMonitorFields.safeParse({ ref, escalationPolicy });
    if (!managed.success)
      issues.push(...prefixed(path, issuesFromZod(managed.error)).filter((i) => !i.path.startsWith(`${path}.ref`)));
    else if (managed.data.escalationPolicy && !policyRefs.has(managed.data.escalationPolicy))
      issues.push({
        path: `${path}.escalationPolicy`,
        message: `"${managed.data.escalationPolicy}" is not the ref of an escalation policy of this document`,
      });
    try {
      const input = await validateCreateInput(null, checkRegions, body);
      if (keepsHeaders) Object.assign(input, { headers: UNREADABLE });
      if (managed.success)
        monitors.push({ index, ref: managed.data.ref, input, escalationPolicy: managed.data.escalationPolicy });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      issues.push(...prefixed(path, (err.details as { issues: Issue[] }).issues));
    }
  }

  const escalationPolicies: DesiredPolicy[] = [];
  for (const [index, entry] of rawPolicies.entries()) {
    if (!isObject(entry)) {
      issues.push({ path: `escalationPolicies[${index}]`, message: 'must be an object' });
      continue;
    }
    const { ref, ...raw } = entry;
    const { body, redacted } = withPlaceholders(raw);
    const parsed = createEscalationPolicySchema.safeParse(body);
    if (!parsed.success) issues.push(...prefixed(`escalationPolicies[${index}]`, issuesFromZod(parsed.error)));
    else if (typeof ref === 'string') escalationPolicies.push({ index, ref, input: parsed.data, redacted });
  }

  const defaults = escalationPolicies.filter((p) => p.input.isDefault);
  for (const extra of defaults.slice(1))
    issues.push({
      path: `escalationPolicies[${extra.index}].isDefault`,
      message: `only one policy can be the default (also escalationPolicies[${defaults[0]!.index}])`,
    });

  const statusPages: DesiredStatusPage[] = [];
  for (const [index, entry] of rawPages.entries()) {
    const path = `statusPages[${index}]`;
    const parsed = statusPageEntrySchema.safeParse(entry);
    if (!parsed.success) {
      issues.push(...prefixed(path, issuesFromZod(parsed.error)).filter((i) => !i.path.startsWith(`${path}.ref`)));
      continue;
    }
    const page = parsed.data;
    if (RESERVED_SLUGS.has(page.slug)) issues.push({ path: `${path}.slug`, message: `"${page.slug}" is reserved` });
    const placed = new Set<string>();
    page.sections.forEach((s, i) =>
      s.monitors.forEach((m, j) => {
        const at = `${path}.sections[${i}].monitors[${j}]`;
        if (!monitorRefs.has(m))
          issues.push({ path: at, message: `"${m}" is not the ref of a monitor of this document` });
        else if (placed.has(m))
          issues.push({ path: at, message: `"${m}" is already placed: a monitor appears at most once` });
        placed.add(m);
      }),
    );
    statusPages.push({ ...page, index });
  }
  const slugs = new Map<string, number>();
  for (const page of statusPages) {
    const first = slugs.get(page.slug);
    if (first !== undefined)
      issues.push({
        path: `statusPages[${page.index}].slug`,
        message: `"${page.slug}" is also statusPages[${first}]'s slug`,
      });
    else slugs.set(page.slug, page.index);
  }

  if (issues.length) fail(issues);
  return { prune: doc.prune ?? false, monitors, escalationPolicies, statusPages };
}

/** The document's one 400 (`Invalid document: <paths>`). */
export function fail(issues: Issue[]): never {
  return failWith('document', issues);
}
