import { issuesFromZod, RESERVED_SLUGS, ValidationError, type Config, type Issue } from '@statusvane/shared';
import { createEscalationPolicySchema } from '../escalation-policies/policy-input.js';
import { createScheduleSchema } from '../schedules/schedule-input.js';
import { validateCreateInput } from '../monitors/monitor-validation.js';
import { failWith, isAt, isObject, type BodyChecks } from '../validation.js';
import { withPlaceholders } from './policy-views.js';
import { accountingSettingsInputSchema } from '../settings/accounting-settings-record.js';
import {
  managedMonitorFields,
  refSchema,
  statusPageEntrySchema,
  type ConfigApplyInput,
  type ConfigDocument,
  type ConfigDocumentInput,
  type configApplySchema,
  type configDocumentSchema,
  type DesiredMonitor,
  type DesiredPolicy,
  type DesiredSchedule,
  type DesiredStatusPage,
} from './config-schema.js';
import { UNREADABLE } from './unreadable.js';

const prefixed = (prefix: string, issues: Issue[]) =>
  issues.map((i) => ({ ...i, path: i.path ? `${prefix}.${i.path}` : prefix }));

/**
 * The issues the document's schema found in its entries, taken by path as the reading reaches them, so that the
 * answer names each entry's problems in the document's order, whichever stage found them.
 */
class SchemaIssues {
  constructor(private readonly left: Issue[]) {}
  /** Those at `path` exactly. */
  at(path: string): Issue[] {
    return this.take((i) => i.path === path);
  }
  /** Those inside `path` (`statusPages[2].name`), but for its `ref` (the refs are named first). */
  inside(path: string): Issue[] {
    return this.take((i) => isAt(i.path, path) && i.path !== `${path}.ref`);
  }
  /** Any the reading did not reach. */
  rest(): Issue[] {
    return this.take(() => true);
  }
  private take(test: (issue: Issue) => boolean): Issue[] {
    const taken = this.left.filter(test);
    if (taken.length) this.left.splice(0, this.left.length, ...this.left.filter((i) => !test(i)));
    return taken;
  }
}

/** The entries' refs, each the first entry to hold it: a malformed one (the schema's issue) or a later one is named. */
function refsOf(kind: string, entries: readonly unknown[], found: SchemaIssues, issues: Issue[]): Map<string, number> {
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    issues.push(...found.at(`${kind}[${i}].ref`));
    const ref = isObject(entry) ? refSchema.safeParse(entry.ref) : undefined;
    if (!ref?.success) return;
    const first = seen.get(ref.data);
    if (first !== undefined)
      issues.push({ path: `${kind}[${i}].ref`, message: `duplicate ref "${ref.data}" (also ${kind}[${first}])` });
    else seen.set(ref.data, i);
  });
  return seen;
}

/** A document as the schema shapes it: its entries may still hold what the schema left to the kinds' own rules. */
interface DocumentEntries {
  prune?: boolean | undefined;
  accounting?: unknown;
  monitors?: readonly unknown[] | undefined;
  escalationPolicies?: readonly unknown[] | undefined;
  statusPages?: readonly unknown[] | undefined;
  schedules?: readonly unknown[] | undefined;
}

/**
 * Reads a document's entries with the API's own rules for their kinds (monitors with the POST /monitors validator,
 * without its network checks; policies with the policy schema), refs unique per type and every reference to a ref
 * of the document resolved; each issue at its path in the document (`monitors[3].target`). What the document's
 * schema reports (an entry that is not an object, a malformed ref, a status page's fields) is left to it.
 */
async function readEntries(
  document: DocumentEntries,
  checkRegions: readonly string[],
  found = new SchemaIssues([]),
): Promise<{ issues: Issue[]; doc: ConfigDocument }> {
  const issues: Issue[] = [];
  const rawMonitors = document.monitors ?? [];
  const rawPolicies = document.escalationPolicies ?? [];
  const rawPages = document.statusPages ?? [];
  const rawSchedules = document.schedules ?? [];
  const monitorRefs = refsOf('monitors', rawMonitors, found, issues);
  const policyRefs = refsOf('escalationPolicies', rawPolicies, found, issues);
  refsOf('statusPages', rawPages, found, issues);
  refsOf('schedules', rawSchedules, found, issues);

  const monitors: DesiredMonitor[] = [];
  for (const [index, entry] of rawMonitors.entries()) {
    const path = `monitors[${index}]`;
    issues.push(...found.inside(path));
    if (!isObject(entry)) continue;
    const { ref, escalationPolicy, ...fields } = entry;
    // `headers: "<unreadable>"` (an export's headers that could not be decrypted) stands for the stored headers: judged
    // by desiredMonitorView, not by the create schema (which wants an object).
    const { headers, ...rest } = fields;
    const keepsHeaders = headers === UNREADABLE && fields.type === 'http';
    const body = keepsHeaders ? rest : fields;
    const managed = managedMonitorFields.safeParse({ ref, escalationPolicy });
    if (managed.success && managed.data.escalationPolicy && !policyRefs.has(managed.data.escalationPolicy))
      issues.push({
        path: `${path}.escalationPolicy`,
        message: `"${managed.data.escalationPolicy}" is not the ref of an escalation policy of this document`,
      });
    try {
      const input = await validateCreateInput(checkRegions, body);
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
    issues.push(...found.inside(`escalationPolicies[${index}]`));
    if (!isObject(entry)) continue;
    const { ref, ...raw } = entry;
    const { body, redacted } = withPlaceholders(raw);
    const parsed = createEscalationPolicySchema.safeParse(body);
    if (!parsed.success) issues.push(...prefixed(`escalationPolicies[${index}]`, issuesFromZod(parsed.error)));
    else if (typeof ref === 'string') escalationPolicies.push({ index, ref, input: parsed.data, redacted });
  }

  const schedules: DesiredSchedule[] = [];
  for (const [index, entry] of rawSchedules.entries()) {
    issues.push(...found.inside(`schedules[${index}]`));
    if (!isObject(entry)) continue;
    const { ref, ...body } = entry;
    const parsed = createScheduleSchema.safeParse(body);
    if (!parsed.success) issues.push(...prefixed(`schedules[${index}]`, issuesFromZod(parsed.error)));
    else if (typeof ref === 'string') schedules.push({ index, ref, input: parsed.data });
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
    issues.push(...found.inside(path));
    const parsed = statusPageEntrySchema.safeParse(entry);
    if (!parsed.success) continue;
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

  issues.push(...found.rest());
  // The schema judged it (its issues are the document's own, at `accounting.<field>`).
  const accounting =
    document.accounting === undefined ? null : accountingSettingsInputSchema.safeParse(document.accounting);
  return {
    issues,
    doc: {
      prune: document.prune ?? false,
      accounting: accounting?.success ? accounting.data : null,
      monitors,
      escalationPolicies,
      statusPages,
      schedules,
    },
  };
}

/**
 * The documents read while their body was judged, by the parsed body the route then hands the verb: each is read
 * once per request (reading validates every monitor, a tenth of a second per thousand).
 */
const readDocuments = new WeakMap<object, ConfigDocument>();

type DocumentSchema = typeof configDocumentSchema | typeof configApplySchema;

/**
 * POST /config/plan and /config/apply: the rules of each entry's kind, judged with the document's schema (one 400
 * names every problem, each at its path, entry by entry). The entries are judged once the document's top level is
 * well-formed: until then only its issues are named. Apply's `planId` is named first, with the document's own.
 */
function documentChecks<S extends DocumentSchema>(
  planId: boolean,
): BodyChecks<S, { config: Pick<Config, 'checkRegions'> }> {
  const apart = (i: Issue) => planId && i.path === 'planId';
  return {
    noun: 'document',
    judge: async (deps, { body, issues, value }) => {
      const top = issues.filter((i) => !i.path.includes('['));
      if (top.some((i) => !apart(i))) return top;
      const found = new SchemaIssues(issues.filter((i) => !apart(i)));
      const read = await readEntries((value ?? body) as DocumentEntries, deps.config.checkRegions, found);
      if (value && read.issues.length === 0) readDocuments.set(value, read.doc);
      return [...top, ...read.issues];
    },
  };
}
export const configDocumentChecks = documentChecks<typeof configDocumentSchema>(false);
export const configApplyChecks = documentChecks<typeof configApplySchema>(true);

/** The document a verb was given, read (by its body's checks, or now, for a caller without a route). */
export async function readConfigDocument(
  input: ConfigDocumentInput | ConfigApplyInput,
  checkRegions: readonly string[],
): Promise<ConfigDocument> {
  const known = readDocuments.get(input);
  if (known) return known;
  const { issues, doc } = await readEntries(input, checkRegions);
  if (issues.length) fail(issues);
  return doc;
}

/** The document's one 400 (`Invalid document: <paths>`). */
export function fail(issues: Issue[]): never {
  return failWith('document', issues);
}
