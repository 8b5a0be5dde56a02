import type { ComponentChildren } from 'preact';
import { DNS_RECORD_TYPES, HTTP_METHODS, JSON_ASSERTION_OPERATORS } from '@statusvane/shared';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import { Button } from '../../views/components/button.js';
import { PostForm } from '../../views/components/form.js';
import {
  OPERATOR_LABELS,
  stepIssueKey,
  StepsEditor,
  stepsBody,
  stepsOfForm,
  stepsOfRecord,
  stepsValues,
} from './api-steps-form.js';
import { intOf, intsOf, jsonValueOf, linesOf, pairsOf } from './form-values.js';
import { MONITOR_TYPE_LABELS, type MonitorType } from './monitor-list-view.js';

/**
 * The monitor form (new and edit) for every field of each type, as form fields that map one to one onto the API's
 * JSON body (POST /monitors, PATCH /monitors/{id}): the service judges the body exactly as for the API, and each
 * issue of its 400 (`details.issues[].path`) is shown beside the field its first segment names.
 */

type Kind =
  'text' | 'int' | 'ints' | 'lines' | 'pairs' | 'select' | 'regions' | 'headers' | 'body' | 'assertion' | 'steps';

interface FieldSpec {
  name: string;
  label: string;
  kind: Kind;
  types: readonly MonitorType[];
  section: Section;
  hint?: string;
  /** select: the choices, [value, label]. */
  options?: ReadonlyArray<readonly [string, string]>;
  /** Edit: an emptied field sends null (clears the setting). */
  nullable?: boolean;
  /** Only on create (the API refuses it on update: `metadata`), or only on edit (`escalationPolicyId`). */
  only?: 'create' | 'edit';
  wide?: boolean;
}

type Section = 'Check' | 'Steps' | 'Response' | 'When to alert' | 'Regions' | 'Organisation';
const SECTIONS: readonly Section[] = ['Check', 'Steps', 'Response', 'When to alert', 'Regions', 'Organisation'];

/** Kinds with a target; kinds checked from regions (an api monitor's steps make its connections). */
const PROBES = ['http', 'tcp', 'dns'] as const;
const PROBED = ['http', 'tcp', 'dns', 'api'] as const;
const ALL = ['http', 'tcp', 'dns', 'heartbeat', 'api'] as const;
const NEVER_FIRES = 'At or above the timeout it never fires: a check that slow has already failed as a timeout.';

const TARGET_HINTS: Record<(typeof PROBES)[number], string> = {
  http: 'An http or https URL, such as https://example.com/health.',
  tcp: 'host:port, such as db.example.com:5432 ([addr]:port for IPv6).',
  dns: 'The host name to query, such as example.com.',
};

/** Every field, in the order the form shows them. */
export const FIELDS: readonly FieldSpec[] = [
  { name: 'name', label: 'Name', kind: 'text', types: ALL, section: 'Check' },
  { name: 'target', label: 'Target', kind: 'text', types: PROBES, section: 'Check', wide: true },
  {
    name: 'method',
    label: 'Method',
    kind: 'select',
    types: ['http'],
    section: 'Check',
    options: HTTP_METHODS.map((m) => [m, m] as const),
  },
  {
    name: 'dnsRecordType',
    label: 'Record type',
    kind: 'select',
    types: ['dns'],
    section: 'Check',
    options: DNS_RECORD_TYPES.map((t) => [t, t] as const),
  },
  {
    name: 'dnsResolver',
    label: 'Resolver',
    kind: 'text',
    types: ['dns'],
    section: 'Check',
    nullable: true,
    hint: 'ip[:port] of the resolver to ask; empty: the worker’s own.',
  },
  {
    name: 'intervalSeconds',
    label: 'Check every (seconds)',
    kind: 'int',
    types: PROBED,
    section: 'Check',
    hint: '60 to 86,400.',
  },
  {
    name: 'timeoutMs',
    label: 'Timeout (ms)',
    kind: 'int',
    types: PROBED,
    section: 'Check',
    hint: '1,000 to 30,000 (an api monitor: the whole run).',
  },
  {
    name: 'intervalSeconds',
    label: 'Expect a ping every (seconds)',
    kind: 'int',
    types: ['heartbeat'],
    section: 'Check',
    hint: 'With a schedule below, only how often the deadline is judged.',
  },
  {
    name: 'schedule',
    label: 'Cron schedule',
    kind: 'text',
    types: ['heartbeat'],
    section: 'Check',
    nullable: true,
    hint: 'Five fields, such as 0 3 * * * (instead of the interval).',
  },
  {
    name: 'timezone',
    label: 'Time zone',
    kind: 'text',
    types: ['heartbeat'],
    section: 'Check',
    hint: 'Such as Europe/Berlin.',
  },
  {
    name: 'graceSeconds',
    label: 'Grace (seconds)',
    kind: 'int',
    types: ['heartbeat'],
    section: 'Check',
    hint: 'How late a ping may be before the heartbeat fails.',
  },
  {
    name: 'maxRunSeconds',
    label: 'Longest run (seconds)',
    kind: 'int',
    types: ['heartbeat'],
    section: 'Check',
    nullable: true,
    hint: 'A run from /start to its end ping that takes longer fails; empty: no limit.',
  },
  { name: 'steps', label: 'Steps', kind: 'steps', types: ['api'], section: 'Steps' },
  {
    name: 'minRunSeconds',
    label: 'Shortest run (seconds)',
    kind: 'int',
    types: ['heartbeat'],
    section: 'Check',
    nullable: true,
    hint: 'A run from /start to its success ping that ends sooner fails (it did not do its work); empty: no limit.',
  },
  {
    name: 'expectedStatusCodes',
    label: 'Expected status codes',
    kind: 'ints',
    types: ['http'],
    section: 'Response',
    hint: 'Comma-separated, such as 200, 204; empty: any 2xx or 3xx.',
  },
  {
    name: 'keyword',
    label: 'Keyword that must appear',
    kind: 'text',
    types: ['http'],
    section: 'Response',
    nullable: true,
  },
  {
    name: 'keywordAbsent',
    label: 'Keyword that must not appear',
    kind: 'text',
    types: ['http'],
    section: 'Response',
    nullable: true,
  },
  {
    name: 'jsonAssertion',
    label: 'JSON assertion',
    kind: 'assertion',
    types: ['http'],
    section: 'Response',
    hint: 'A JSON path (such as $.status), an operator and a value (JSON: "ok", 200, true).',
    wide: true,
  },
  {
    name: 'dnsExpected',
    label: 'Expected answers',
    kind: 'lines',
    types: ['dns'],
    section: 'Response',
    hint: 'One per line, all of which must be present; empty: any answer.',
  },
  {
    name: 'headers',
    label: 'Request headers',
    kind: 'headers',
    types: ['http'],
    section: 'Response',
    hint: 'One per line, Name: value. Stored encrypted and never shown again.',
    wide: true,
  },
  {
    name: 'body',
    label: 'Request body',
    kind: 'body',
    types: ['http'],
    section: 'Response',
    hint: 'Sent with POST. Stored encrypted and never shown again.',
    wide: true,
  },
  { name: 'contentType', label: 'Body content type', kind: 'text', types: ['http'], section: 'Response' },
  {
    name: 'degradedAfterMs',
    label: 'Degraded after (ms)',
    kind: 'int',
    types: PROBED,
    section: 'When to alert',
    nullable: true,
    hint: `A passing check slower than this is degraded (still up). ${NEVER_FIRES}`,
  },
  {
    name: 'latencyThresholdMs',
    label: 'Fail when slower than (ms)',
    kind: 'int',
    types: PROBED,
    section: 'When to alert',
    nullable: true,
    hint: `A check slower than this fails. ${NEVER_FIRES}`,
  },
  {
    name: 'certificateExpiryDays',
    label: 'Certificate warning (days)',
    kind: 'int',
    types: ['http'],
    section: 'When to alert',
    nullable: true,
    hint: 'Fail an https check whose certificate expires within this many days; empty: off.',
  },
  {
    name: 'openThreshold',
    label: 'Failures to open an incident',
    kind: 'int',
    types: ALL,
    section: 'When to alert',
    hint: 'Consecutive, 1 to 10.',
  },
  {
    name: 'resolveThreshold',
    label: 'Passes to resolve it',
    kind: 'int',
    types: ALL,
    section: 'When to alert',
    hint: 'Consecutive, 1 to 10.',
  },
  {
    name: 'confirmAfterSeconds',
    label: 'Re-check after (seconds)',
    kind: 'int',
    types: ALL,
    section: 'When to alert',
    hint: 'A result that moves toward a threshold is checked again this soon (0: off).',
  },
  {
    name: 'escalationPolicyId',
    label: 'Escalation policy',
    kind: 'select',
    types: ALL,
    section: 'When to alert',
    only: 'edit',
    nullable: true,
  },
  { name: 'regions', label: 'Regions', kind: 'regions', types: PROBED, section: 'Regions' },
  {
    name: 'quorum',
    label: 'Quorum',
    kind: 'int',
    types: PROBED,
    section: 'Regions',
    nullable: true,
    hint: 'How many regions must be failing to open an incident; empty: a majority.',
  },
  { name: 'environment', label: 'Environment', kind: 'text', types: ALL, section: 'Organisation' },
  {
    name: 'dependsOn',
    label: 'Depends on',
    kind: 'lines',
    types: ALL,
    section: 'Organisation',
    hint: 'Monitor ids, one per line: while one of them is down, this monitor’s incidents page nobody.',
  },
  {
    name: 'metadata',
    label: 'Metadata',
    kind: 'pairs',
    types: ALL,
    section: 'Organisation',
    only: 'create',
    hint: 'key=value, one per line; copied onto every incident (set at creation).',
  },
];

/** A form's fields as posted (regions: every box ticked; `jsonAssertion.*` and the clear boxes by their names). */
export type FormValues = Record<string, string | string[] | undefined>;

export function fieldsOf(type: MonitorType, mode: 'create' | 'edit'): FieldSpec[] {
  return FIELDS.filter((f) => f.types.includes(type) && (!f.only || f.only === mode));
}

const str = (v: FormValues[string]) => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

/** What a record shows in each field of the form (write-only fields: nothing). */
export function valuesOf(m: MonitorRecord): FormValues {
  const a = m.jsonAssertion;
  return {
    name: m.name,
    target: m.target ?? '',
    method: m.method ?? 'GET',
    dnsRecordType: m.dnsRecordType ?? 'A',
    dnsResolver: m.dnsResolver ?? '',
    intervalSeconds: String(m.intervalSeconds),
    timeoutMs: m.timeoutMs === null ? '' : String(m.timeoutMs),
    schedule: m.schedule ?? '',
    timezone: m.timezone ?? '',
    graceSeconds: m.graceSeconds === null ? '' : String(m.graceSeconds),
    maxRunSeconds: m.maxRunSeconds === null ? '' : String(m.maxRunSeconds),
    minRunSeconds: m.minRunSeconds === null ? '' : String(m.minRunSeconds),
    expectedStatusCodes: m.expectedStatusCodes.join(', '),
    keyword: m.keyword ?? '',
    keywordAbsent: m.keywordAbsent ?? '',
    'jsonAssertion.path': a?.path ?? '',
    'jsonAssertion.operator': a?.operator ?? 'eq',
    'jsonAssertion.value': a && a.value !== undefined ? JSON.stringify(a.value) : '',
    dnsExpected: m.dnsExpected.join('\n'),
    contentType: m.contentType ?? '',
    degradedAfterMs: m.degradedAfterMs === null ? '' : String(m.degradedAfterMs),
    latencyThresholdMs: m.latencyThresholdMs === null ? '' : String(m.latencyThresholdMs),
    certificateExpiryDays: m.certificateExpiryDays === null ? '' : String(m.certificateExpiryDays),
    openThreshold: String(m.openThreshold),
    resolveThreshold: String(m.resolveThreshold),
    confirmAfterSeconds: String(m.confirmAfterSeconds),
    escalationPolicyId: m.escalationPolicyId ?? '',
    regions: m.regions,
    quorum: String(m.quorum),
    environment: m.environment,
    dependsOn: m.dependsOn.join('\n'),
    metadata: Object.entries(m.metadata)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    ...(m.steps ? stepsValues(stepsOfRecord(m.steps)) : {}),
  };
}

/**
 * The value a field gives the API's body, or `undefined` to leave it out. `mode` decides what an empty field
 * means: nothing (create: the default), or null where the setting can be cleared (edit).
 */
function bodyValue(f: FieldSpec, values: FormValues, mode: 'create' | 'edit'): unknown {
  const raw = str(values[f.name]);
  const empty = raw.trim() === '';
  const cleared = mode === 'edit' && f.nullable ? null : undefined;
  switch (f.kind) {
    case 'text':
      // Edit: an emptied setting that cannot be cleared is sent as it is, and the service says why it is needed.
      return empty ? (f.nullable || mode === 'create' ? cleared : raw) : raw;
    case 'select':
      return empty ? cleared : raw;
    case 'int':
      return empty ? cleared : intOf(raw);
    case 'ints':
      return intsOf(raw);
    case 'lines':
      return linesOf(raw);
    case 'pairs':
      return pairsOf(raw, '=');
    case 'regions': {
      const ticked = values.regions;
      const list = Array.isArray(ticked) ? ticked : ticked ? [ticked] : [];
      // A new monitor with every region ticked (or none) takes the default, all of them, which follows CHECK_REGIONS.
      const everyRegion = str(values['regions.all']).split(',').filter(Boolean);
      const all = list.length === everyRegion.length && everyRegion.every((r) => list.includes(r));
      return mode === 'create' && (list.length === 0 || all) ? undefined : list;
    }
    case 'headers': {
      if (str(values['headers.clear']) === 'on') return {};
      if (empty) return undefined;
      return pairsOf(raw, ':');
    }
    case 'body':
      if (str(values['body.clear']) === 'on') return null;
      return empty ? undefined : raw;
    case 'steps':
      return stepsBody(stepsOfForm(values));
    case 'assertion': {
      const path = str(values['jsonAssertion.path']).trim();
      if (!path) return mode === 'edit' ? null : undefined;
      const operator = str(values['jsonAssertion.operator']);
      const value = str(values['jsonAssertion.value']);
      return {
        path,
        operator,
        ...(operator === 'exists' || operator === 'notExists' || value.trim() === ''
          ? {}
          : { value: jsonValueOf(value) }),
      };
    }
  }
}

/**
 * The API body of a submitted form: for a new monitor every field given (and its type); for an edit only the fields
 * sent whose value differs from what the form showed for the record as it is (`current`), so a field left alone never
 * turns a default into a setting, and write-only fields only when something was typed or cleared.
 */
export function bodyOf(
  type: MonitorType,
  values: FormValues,
  mode: 'create' | 'edit',
  current?: MonitorRecord,
): Record<string, unknown> {
  const out: Record<string, unknown> = mode === 'create' ? { type } : {};
  const shown = current ? valuesOf(current) : {};
  for (const f of fieldsOf(type, mode)) {
    // A field the request did not carry at all is left as it is (a box unticked still sends its group's marker).
    const markers =
      f.kind === 'regions'
        ? ['regions.all']
        : f.kind === 'assertion'
          ? ['jsonAssertion.path']
          : f.kind === 'steps'
            ? ['steps.0.method']
            : f.kind === 'headers' || f.kind === 'body'
              ? [f.name, `${f.name}.clear`]
              : [f.name];
    if (mode === 'edit' && markers.every((k) => values[k] === undefined)) continue;
    const v = bodyValue(f, values, mode);
    if (v === undefined) continue;
    if (mode === 'edit' && f.kind !== 'headers' && f.kind !== 'body') {
      const before = bodyValue(f, shown, mode);
      if (JSON.stringify(before) === JSON.stringify(v)) continue;
    }
    out[f.name] = v;
  }
  return out;
}

/** The schema's wording where a person filling in a form would read it otherwise. */
function plainly(message: string): string {
  if (/expected string, received undefined|expected string to have >=1 characters/.test(message)) return 'Required.';
  if (/expected number, received string/.test(message)) return 'A whole number, please.';
  if (/expected record, received string/.test(message)) return 'Not JSON: a JSON Schema is a JSON object.';
  return message;
}

/**
 * A 400's issues by form field (the first segment of each path; an api monitor's steps by the step field they name,
 * `steps.1.url`); those of no field under ''.
 */
export function issuesByField(
  type: MonitorType,
  mode: 'create' | 'edit',
  issues: ReadonlyArray<{ path: string; message: string }>,
  values: FormValues = {},
): Record<string, string> {
  const names = new Set(fieldsOf(type, mode).map((f) => f.name));
  const steps = type === 'api' ? stepsOfForm(values) : [];
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const head = issue.path.split(/[.[]/)[0] ?? '';
    const at = head === 'steps' && type === 'api' ? stepIssueKey(steps, issue.path, issue.message) : null;
    const key = at ? at.key : names.has(head) ? head : '';
    const rest = at ? at.rest : key ? issue.path.slice(head.length).replace(/^\./, '') : issue.path;
    const message = plainly(issue.message);
    const text = rest && key ? `${rest}: ${message}` : key ? message : `${issue.path || 'body'}: ${message}`;
    // Several issues of one field read as sentences.
    const before = out[key];
    out[key] = before ? `${before}${/[.!?]$/.test(before) ? '' : ';'} ${text}` : text;
  }
  return out;
}

/** jsonAssertion's operators with the words the step assertions use. */
const ASSERTION_OPERATORS = JSON_ASSERTION_OPERATORS.map((op) => [op, OPERATOR_LABELS[op]] as const);

/** Warnings the form shows beside a field as it stands (they do not stop a save). */
function warningsOf(values: FormValues): Record<string, string> {
  const timeout = Number(str(values.timeoutMs) || '10000');
  const out: Record<string, string> = {};
  for (const name of ['degradedAfterMs', 'latencyThresholdMs']) {
    const v = Number(str(values[name]));
    if (str(values[name]).trim() && Number.isFinite(v) && Number.isFinite(timeout) && v >= timeout)
      out[name] = `At or above the timeout (${timeout} ms): this never fires.`;
  }
  return out;
}

function Control(props: {
  f: FieldSpec;
  values: FormValues;
  mode: 'create' | 'edit';
  describedBy: string | undefined;
  invalid: boolean;
  regions: readonly string[];
  policies: ReadonlyArray<{ id: string; name: string }>;
  hasSecret: { headers: string[]; body: boolean };
}) {
  const { f, values } = props;
  const id = `f-${f.name}`;
  const common = {
    id,
    name: f.name,
    'aria-describedby': props.describedBy,
    'aria-invalid': props.invalid ? ('true' as const) : undefined,
  };
  const v = str(values[f.name]);
  switch (f.kind) {
    case 'text':
    case 'int':
      return <input {...common} type="text" inputMode={f.kind === 'int' ? 'numeric' : undefined} value={v} />;
    case 'ints':
      return <input {...common} type="text" value={v} />;
    case 'lines':
    case 'pairs':
      return <textarea {...common} rows={3} value={v} />;
    case 'select': {
      const options: ReadonlyArray<readonly [string, string]> =
        f.name === 'escalationPolicyId'
          ? [['', 'The workspace default'], ...props.policies.map((p) => [p.id, p.name] as const)]
          : (f.options ?? []);
      return (
        <select {...common}>
          {options.map(([value, label]) => (
            <option value={value} selected={v === value}>
              {label}
            </option>
          ))}
        </select>
      );
    }
    case 'regions': {
      const ticked = new Set(Array.isArray(values.regions) ? values.regions : values.regions ? [values.regions] : []);
      return (
        <div class="checks" role="group" aria-labelledby={`${id}-label`} aria-describedby={props.describedBy}>
          <input type="hidden" name="regions.all" value={props.regions.join(',')} />
          {props.regions.map((r) => (
            <label class="check">
              <input type="checkbox" name="regions" value={r} checked={ticked.has(r)} />
              {r}
            </label>
          ))}
        </div>
      );
    }
    case 'headers':
    case 'body':
      return (
        <>
          <textarea {...common} rows={3} value={v} placeholder={props.mode === 'edit' ? 'Unchanged' : undefined} />
          {props.mode === 'edit' &&
            (f.kind === 'headers' ? props.hasSecret.headers.length > 0 : props.hasSecret.body) && (
              <label class="check">
                <input type="checkbox" name={`${f.name}.clear`} />
                Remove the stored {f.kind === 'headers' ? `headers (${props.hasSecret.headers.join(', ')})` : 'body'}
              </label>
            )}
        </>
      );
    case 'steps':
      // Drawn by StepsEditor, a section of its own.
      return null;
    case 'assertion':
      return (
        <div class="assertion" role="group" aria-labelledby={`${id}-label`} aria-describedby={props.describedBy}>
          <input
            id={id}
            type="text"
            name="jsonAssertion.path"
            aria-label="JSON path"
            placeholder="$.status"
            value={str(values['jsonAssertion.path'])}
          />
          <select name="jsonAssertion.operator" aria-label="Operator">
            {ASSERTION_OPERATORS.map(([op, label]) => (
              <option value={op} selected={str(values['jsonAssertion.operator']) === op}>
                {label}
              </option>
            ))}
          </select>
          <input
            type="text"
            name="jsonAssertion.value"
            aria-label="Value"
            placeholder='"ok"'
            value={str(values['jsonAssertion.value'])}
          />
        </div>
      );
  }
}

/**
 * The form: fields grouped by section, each with its label, hint, warning and the 400 issue beside it (tied to it by
 * aria-describedby), the typed values kept; an edit carries the record's `version` for If-Match.
 */
export function MonitorForm(props: {
  action: string;
  csrf: string;
  type: MonitorType;
  mode: 'create' | 'edit';
  values: FormValues;
  errors: Record<string, string>;
  version?: number;
  regions: readonly string[];
  policies: ReadonlyArray<{ id: string; name: string }>;
  hasSecret?: { headers: string[]; body: boolean };
  /** The workspace's secret names, which api steps may name (`{{secrets.NAME}}`). */
  secrets?: readonly string[];
  submitLabel: string;
  cancel: string;
  readOnly?: ComponentChildren;
}) {
  const fields = fieldsOf(props.type, props.mode);
  const warnings = warningsOf(props.values);
  const hasSecret = props.hasSecret ?? { headers: [], body: false };
  return (
    <PostForm
      action={props.action}
      csrf={props.csrf}
      class="monitor-form"
      label={`${MONITOR_TYPE_LABELS[props.type]} monitor`}
    >
      {props.type === 'api' && (
        // Enter in a field sends the form with its first button: this one, not a step's "Remove" or "Up".
        <button type="submit" class="visually-hidden" tabIndex={-1} aria-hidden="true">
          {props.submitLabel}
        </button>
      )}
      {props.mode === 'create' && <input type="hidden" name="type" value={props.type} />}
      {props.version !== undefined && <input type="hidden" name="version" value={String(props.version)} />}
      {props.errors[''] && (
        <div class="flash flash-error" role="alert">
          {props.errors['']}
        </div>
      )}
      {SECTIONS.map((section) => {
        const inSection = fields.filter((f) => f.section === section);
        if (inSection.length === 0) return null;
        if (section === 'Steps')
          return (
            <fieldset class="card form-section steps-section" aria-describedby="f-steps-hint">
              <legend>Steps</legend>
              <StepsEditor steps={stepsOfForm(props.values)} errors={props.errors} secrets={props.secrets ?? []} />
            </fieldset>
          );
        return (
          <fieldset class="card form-section">
            <legend>{section}</legend>
            <div class="form-grid">
              {inSection.map((f) => {
                const id = `f-${f.name}`;
                const error = props.errors[f.name];
                const warning = warnings[f.name];
                const describedBy =
                  [error && `${id}-error`, warning && `${id}-warning`, f.hint && `${id}-hint`]
                    .filter(Boolean)
                    .join(' ') || undefined;
                const label =
                  f.name === 'target' && props.type in TARGET_HINTS
                    ? TARGET_HINTS[props.type as keyof typeof TARGET_HINTS]
                    : f.hint;
                return (
                  <div class={['field', error ? 'has-error' : '', f.wide ? 'wide' : ''].filter(Boolean).join(' ')}>
                    {f.kind === 'regions' || f.kind === 'assertion' ? (
                      <span class="label" id={`${id}-label`}>
                        {f.label}
                      </span>
                    ) : (
                      <label htmlFor={id}>{f.label}</label>
                    )}
                    {label && (
                      <p id={`${id}-hint`} class="hint">
                        {label}
                      </p>
                    )}
                    <Control
                      f={f}
                      values={props.values}
                      mode={props.mode}
                      describedBy={describedBy}
                      invalid={!!error}
                      regions={props.regions}
                      policies={props.policies}
                      hasSecret={hasSecret}
                    />
                    {warning && (
                      <p id={`${id}-warning`} class="field-warning">
                        {warning}
                      </p>
                    )}
                    {error && (
                      <p id={`${id}-error`} class="field-error">
                        {error}
                      </p>
                    )}
                  </div>
                );
              })}
            </div>
            {section === 'Organisation' && props.readOnly}
          </fieldset>
        );
      })}
      <div class="form-actions">
        <Button>{props.submitLabel}</Button>
        <a href={props.cancel}>Cancel</a>
      </div>
    </PostForm>
  );
}
