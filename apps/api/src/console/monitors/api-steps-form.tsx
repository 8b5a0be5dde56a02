import {
  API_STEP_LIMITS,
  REDACTED,
  STEP_ASSERTION_SOURCES,
  STEP_METHODS,
  type StepAssertionOperator,
} from '@statusvane/shared';
import type { ComponentChildren } from 'preact';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import { Button } from '../../views/components/button.js';
import { intsOf, jsonValueOf, linesOf, pairsOf } from './form-values.js';

/**
 * The steps of an `api` monitor in the monitor form, without JavaScript: each step's fields are named
 * `steps.<i>.<field>` (assertions `steps.<i>.assertions.<j>.<field>`, extracts `steps.<i>.extract.<j>.<field>`), and
 * adding, removing and moving steps or rows are submit buttons (`_op`) that draw the form again with what was typed,
 * changing nothing stored. Secrets stay write-only: a stored step's headers and body are never sent to the page; left
 * empty, they go back to the API as `"<redacted>"`, which keeps the stored step's of the same name.
 */

export const OPERATOR_LABELS: Record<StepAssertionOperator, string> = {
  eq: 'equals',
  neq: 'does not equal',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  contains: 'contains',
  notContains: 'does not contain',
  exists: 'exists',
  notExists: 'does not exist',
  matches: 'matches (RE2)',
};

const SOURCE_LABELS: Record<(typeof STEP_ASSERTION_SOURCES)[number], string> = {
  status: 'Status code',
  header: 'Header',
  json: 'JSON',
  body: 'Body text',
  responseMs: 'Response time (ms)',
};

interface AssertionRow {
  source: string;
  property: string;
  operator: string;
  value: string;
}
interface ExtractRow {
  as: string;
  from: string;
  path: string;
}

/** One step as the form shows it: every value as text. */
export interface StepForm {
  name: string;
  method: string;
  url: string;
  headers: string;
  body: string;
  expectedStatusCodes: string;
  responseSchema: string;
  always: boolean;
  assertions: AssertionRow[];
  extract: ExtractRow[];
  /** Edit: the names of the stored headers, and whether a body is stored (kept unless replaced or removed). */
  storedHeaders: string;
  storedBody: boolean;
  clearHeaders: boolean;
  clearBody: boolean;
}

const blankAssertion = (): AssertionRow => ({ source: '', property: '', operator: 'eq', value: '' });
const blankExtract = (): ExtractRow => ({ as: '', from: 'json', path: '' });
const isBlankAssertion = (a: AssertionRow) => !a.source && !a.property.trim() && !a.value.trim();
const isBlankExtract = (e: ExtractRow) => !e.as.trim() && !e.path.trim();

export function blankStep(): StepForm {
  return {
    name: '',
    method: 'GET',
    url: '',
    headers: '',
    body: '',
    expectedStatusCodes: '',
    responseSchema: '',
    always: false,
    assertions: [blankAssertion()],
    extract: [blankExtract()],
    storedHeaders: '',
    storedBody: false,
    clearHeaders: false,
    clearBody: false,
  };
}

/** Operators whose value is text to look for (never read as JSON). */
const TEXT_OPERATORS = new Set(['contains', 'notContains', 'matches']);

/** An assertion's value as typed: JSON where it reads as a JSON primitive (200, true, "200"), else the text. */
const valueOf = (operator: string, text: string): unknown => (TEXT_OPERATORS.has(operator) ? text : jsonValueOf(text));

/** An assertion's value as the form shows it (a string that would read as something else keeps its quotes). */
function valueText(operator: string, v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return TEXT_OPERATORS.has(operator) || valueOf(operator, v) === v ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

/** The form of stored steps (a blank assertion and extract row each, to fill in). */
export function stepsOfRecord(steps: NonNullable<MonitorRecord['steps']>): StepForm[] {
  return steps.map((s) => ({
    ...blankStep(),
    name: s.name,
    method: s.method,
    url: s.url,
    expectedStatusCodes: (s.expectedStatusCodes ?? []).join(', '),
    responseSchema: s.responseSchema ? JSON.stringify(s.responseSchema, null, 2) : '',
    always: s.always ?? false,
    assertions: [
      ...(s.assertions ?? []).map((a) => ({
        source: a.source,
        property: a.property ?? '',
        operator: a.operator,
        value: valueText(a.operator, a.value),
      })),
      blankAssertion(),
    ],
    extract: [...(s.extract ?? []).map((e) => ({ as: e.as, from: e.from, path: e.path })), blankExtract()],
    storedHeaders: s.headerNames.join(', '),
    storedBody: s.hasBody,
  }));
}

type Values = Record<string, string | string[] | undefined>;
const text = (v: Values[string]) => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

/** Indices `<i>` of `<prefix><i>.<field>` keys present, in order. */
function indices(values: Values, prefix: string, field: string): number[] {
  const re = new RegExp(`^${prefix.replace(/\./g, '\\.')}(\\d{1,2})\\.${field}$`);
  const found = new Set<number>();
  for (const k of Object.keys(values)) {
    const m = re.exec(k);
    if (m) found.add(Number(m[1]));
  }
  return [...found].sort((a, b) => a - b);
}

/** The steps of a posted form (the method select is sent for every step, the operator for every row). */
export function stepsOfForm(values: Values): StepForm[] {
  return indices(values, 'steps.', 'method').map((i) => {
    const at = (f: string) => text(values[`steps.${i}.${f}`]);
    return {
      name: at('name'),
      method: at('method'),
      url: at('url'),
      headers: at('headers'),
      body: at('body'),
      expectedStatusCodes: at('expectedStatusCodes'),
      responseSchema: at('responseSchema'),
      always: at('always') === 'on',
      assertions: indices(values, `steps.${i}.assertions.`, 'operator').map((j) => ({
        source: at(`assertions.${j}.source`),
        property: at(`assertions.${j}.property`),
        operator: at(`assertions.${j}.operator`),
        value: at(`assertions.${j}.value`),
      })),
      extract: indices(values, `steps.${i}.extract.`, 'from').map((j) => ({
        as: at(`extract.${j}.as`),
        from: at(`extract.${j}.from`),
        path: at(`extract.${j}.path`),
      })),
      storedHeaders: at('storedHeaders'),
      storedBody: at('storedBody') === 'on',
      clearHeaders: at('headers.clear') === 'on',
      clearBody: at('body.clear') === 'on',
    };
  });
}

/** The steps as a posted form carries them (to draw the form again after an `_op`). */
export function stepsValues(steps: readonly StepForm[]): Values {
  const out: Values = {};
  steps.forEach((s, i) => {
    const p = `steps.${i}.`;
    Object.assign(out, {
      [`${p}name`]: s.name,
      [`${p}method`]: s.method,
      [`${p}url`]: s.url,
      [`${p}headers`]: s.headers,
      [`${p}body`]: s.body,
      [`${p}expectedStatusCodes`]: s.expectedStatusCodes,
      [`${p}responseSchema`]: s.responseSchema,
      [`${p}always`]: s.always ? 'on' : undefined,
      [`${p}storedHeaders`]: s.storedHeaders,
      [`${p}storedBody`]: s.storedBody ? 'on' : undefined,
      [`${p}headers.clear`]: s.clearHeaders ? 'on' : undefined,
      [`${p}body.clear`]: s.clearBody ? 'on' : undefined,
    });
    s.assertions.forEach((a, j) => {
      for (const [k, v] of Object.entries(a)) out[`${p}assertions.${j}.${k}`] = v;
    });
    s.extract.forEach((e, j) => {
      for (const [k, v] of Object.entries(e)) out[`${p}extract.${j}.${k}`] = v;
    });
  });
  return out;
}

/** The form's values with only the steps replaced. */
export function withSteps(values: Values, steps: readonly StepForm[]): Values {
  const rest = Object.fromEntries(Object.entries(values).filter(([k]) => !k.startsWith('steps.')));
  return { ...rest, ...stepsValues(steps) };
}

/**
 * A step button's change (`add-step`, `remove:<i>`, `up:<i>`, `down:<i>`, `add-assertion:<i>`, `add-extract:<i>`),
 * or null for a value that is none of them.
 */
export function applyStepOp(steps: readonly StepForm[], op: string): StepForm[] | null {
  const out = steps.map((s) => ({ ...s, assertions: [...s.assertions], extract: [...s.extract] }));
  if (op === 'add-step') {
    if (out.length >= API_STEP_LIMITS.stepsMax) return out;
    return [...out, blankStep()];
  }
  const m = /^(remove|up|down|add-assertion|add-extract):(\d{1,2})$/.exec(op);
  if (!m) return null;
  const i = Number(m[2]);
  const step = out[i];
  if (!step) return out;
  switch (m[1]) {
    case 'remove':
      if (out.length > 1) out.splice(i, 1);
      return out;
    case 'up':
    case 'down': {
      const j = m[1] === 'up' ? i - 1 : i + 1;
      if (j < 0 || j >= out.length) return out;
      [out[i], out[j]] = [out[j]!, step];
      return out;
    }
    case 'add-assertion':
      if (step.assertions.length < API_STEP_LIMITS.assertionsMax) step.assertions.push(blankAssertion());
      return out;
    default:
      if (step.extract.length < API_STEP_LIMITS.extractsMax) step.extract.push(blankExtract());
      return out;
  }
}

/** The rows of a step that are sent (blank ones are not): their indices in the form. */
const sentAssertions = (s: StepForm) => s.assertions.flatMap((a, j) => (isBlankAssertion(a) ? [] : [j]));
const sentExtracts = (s: StepForm) => s.extract.flatMap((e, j) => (isBlankExtract(e) ? [] : [j]));

/** A JSON Schema as typed: the object, or the text itself (the API answers that it is not one). */
function schemaOf(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
}

/** The API's `steps` of the form's steps. */
export function stepsBody(steps: readonly StepForm[]): Array<Record<string, unknown>> {
  return steps.map((s) => {
    const out: Record<string, unknown> = { name: s.name, method: s.method, url: s.url.trim() };
    if (s.headers.trim()) out.headers = pairsOf(s.headers, ':');
    else if (s.storedHeaders && !s.clearHeaders)
      out.headers = Object.fromEntries(linesOf(s.storedHeaders.replace(/,\s*/g, '\n')).map((n) => [n, REDACTED]));
    if (s.body !== '') out.body = s.body;
    else if (s.storedBody && !s.clearBody) out.body = REDACTED;
    if (s.expectedStatusCodes.trim()) out.expectedStatusCodes = intsOf(s.expectedStatusCodes);
    if (s.responseSchema.trim()) out.responseSchema = schemaOf(s.responseSchema);
    const assertions = sentAssertions(s).map((j) => {
      const a = s.assertions[j]!;
      const needsProperty = a.source === 'header' || a.source === 'json' || a.property.trim() !== '';
      // An empty value is none: the API says which operators need one.
      return {
        source: a.source,
        ...(needsProperty ? { property: a.property.trim() } : {}),
        operator: a.operator,
        ...(a.value.trim() === '' ? {} : { value: valueOf(a.operator, a.value) }),
      };
    });
    if (assertions.length) out.assertions = assertions;
    const extract = sentExtracts(s).map((j) => {
      const e = s.extract[j]!;
      return { as: e.as.trim(), from: e.from, path: e.path.trim() };
    });
    if (extract.length) out.extract = extract;
    if (s.always) out.always = true;
    return out;
  });
}

const STEP_FIELDS = new Set(['name', 'method', 'url', 'headers', 'body', 'expectedStatusCodes', 'responseSchema']);
const ROW_FIELDS = {
  assertions: new Set(['source', 'property', 'operator', 'value']),
  extract: new Set(['as', 'from', 'path']),
};

/**
 * The form field an issue of the API's `steps` names (`steps[1].url` or `steps.1.url` -> `steps.1.url`;
 * `steps[0].assertions[0].value` -> the row as the form numbers it, blank rows not being sent), and what is left of
 * the path to say beside it (`Authorization` of `steps[0].headers.Authorization`). `steps` itself, or a step as a
 * whole (`steps.2`), where nothing narrower fits. `message`: to place an unknown secret's issue (at `steps`).
 */
export function stepIssueKey(steps: readonly StepForm[], path: string, message = ''): { key: string; rest: string } {
  // A secret the workspace lacks is the whole list's issue: shown beside the first field that names it.
  const secret = /\{\{secrets\.([A-Z][A-Z0-9_]*)\}\}/.exec(message)?.[0];
  if (secret && path === 'steps')
    for (const [i, s] of steps.entries())
      for (const field of ['url', 'headers', 'body'] as const)
        if (s[field].includes(secret)) return { key: `steps.${i}.${field}`, rest: '' };
  const seg = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean);
  if (seg[0] !== 'steps' || seg[1] === undefined || !/^\d+$/.test(seg[1])) return { key: 'steps', rest: '' };
  const i = Number(seg[1]);
  const step = steps[i];
  const field = seg[2];
  if (!step || field === undefined) return { key: step ? `steps.${i}` : 'steps', rest: '' };
  if (STEP_FIELDS.has(field)) return { key: `steps.${i}.${field}`, rest: seg.slice(3).join('.') };
  if (field === 'assertions' || field === 'extract') {
    const rows = field === 'assertions' ? sentAssertions(step) : sentExtracts(step);
    const row = seg[3] !== undefined ? rows[Number(seg[3])] : undefined;
    if (row === undefined) return { key: `steps.${i}.${field}`, rest: seg.slice(3).join('.') };
    const leaf = seg[4];
    if (leaf && ROW_FIELDS[field].has(leaf))
      return { key: `steps.${i}.${field}.${row}.${leaf}`, rest: seg.slice(5).join('.') };
    return { key: `steps.${i}.${field}.${row}`, rest: seg.slice(4).join('.') };
  }
  return { key: `steps.${i}`, rest: seg.slice(2).join('.') };
}

// --- The view ------------------------------------------------------------------------------------------------------

const idOf = (key: string) => `f-${key.replace(/\./g, '-')}`;

function Err(props: { errors: Record<string, string>; k: string }) {
  const e = props.errors[props.k];
  return e ? (
    <p id={`${idOf(props.k)}-error`} class="field-error">
      {e}
    </p>
  ) : null;
}

/** aria attributes of a control whose issue may be beside it. */
function described(errors: Record<string, string>, key: string, hint?: boolean) {
  const ids = [errors[key] && `${idOf(key)}-error`, hint && `${idOf(key)}-hint`].filter(Boolean).join(' ');
  return { 'aria-describedby': ids || undefined, 'aria-invalid': errors[key] ? ('true' as const) : undefined };
}

function StepField(props: {
  k: string;
  label: string;
  hint?: string | undefined;
  errors: Record<string, string>;
  wide?: boolean;
  children: (a: { id: string; name: string } & ReturnType<typeof described>) => ComponentChildren;
}) {
  const id = idOf(props.k);
  const error = props.errors[props.k];
  return (
    <div class={['field', error ? 'has-error' : '', props.wide ? 'wide' : ''].filter(Boolean).join(' ')}>
      <label htmlFor={id}>{props.label}</label>
      {props.hint && (
        <p id={`${id}-hint`} class="hint">
          {props.hint}
        </p>
      )}
      {props.children({ id, name: props.k, ...described(props.errors, props.k, !!props.hint) })}
      <Err errors={props.errors} k={props.k} />
    </div>
  );
}

function AssertionRows(props: { i: number; step: StepForm; errors: Record<string, string> }) {
  const { i, step, errors } = props;
  const n = i + 1;
  return (
    <fieldset class="step-rows">
      <legend>Assertions</legend>
      <p class="hint">
        What the response must show. Header: its name; JSON: a path such as <code>$.items[0].id</code>. Leave a row
        empty to skip it.
      </p>
      <Err errors={errors} k={`steps.${i}.assertions`} />
      <ul class="step-row-list">
        {step.assertions.map((a, j) => {
          const k = (f: string) => `steps.${i}.assertions.${j}.${f}`;
          return (
            <li class="step-row assertion-row">
              <select
                name={k('source')}
                aria-label={`Step ${n}, assertion ${j + 1}: source`}
                {...described(errors, k('source'))}
              >
                <option value="" selected={a.source === ''}>
                  Source…
                </option>
                {STEP_ASSERTION_SOURCES.map((s) => (
                  <option value={s} selected={a.source === s}>
                    {SOURCE_LABELS[s]}
                  </option>
                ))}
              </select>
              <input
                type="text"
                name={k('property')}
                value={a.property}
                placeholder="$.status"
                aria-label={`Step ${n}, assertion ${j + 1}: header or JSON path`}
                {...described(errors, k('property'))}
              />
              <select
                name={k('operator')}
                aria-label={`Step ${n}, assertion ${j + 1}: operator`}
                {...described(errors, k('operator'))}
              >
                {Object.entries(OPERATOR_LABELS).map(([op, label]) => (
                  <option value={op} selected={a.operator === op}>
                    {label}
                  </option>
                ))}
              </select>
              <input
                type="text"
                name={k('value')}
                value={a.value}
                placeholder="200"
                aria-label={`Step ${n}, assertion ${j + 1}: value`}
                {...described(errors, k('value'))}
              />
              {['source', 'property', 'operator', 'value', ''].map((f) => (
                <Err errors={errors} k={f ? k(f) : `steps.${i}.assertions.${j}`} />
              ))}
            </li>
          );
        })}
      </ul>
      <Button variant="quiet" small name="_op" value={`add-assertion:${i}`} label={`Add an assertion to step ${n}`}>
        + Assertion
      </Button>
    </fieldset>
  );
}

function ExtractRows(props: { i: number; step: StepForm; errors: Record<string, string> }) {
  const { i, step, errors } = props;
  const n = i + 1;
  return (
    <fieldset class="step-rows">
      <legend>Extracts</legend>
      <p class="hint">
        Values later steps use as <code>{'{{name}}'}</code>: from a JSON path of the body, or a header.
      </p>
      <Err errors={errors} k={`steps.${i}.extract`} />
      <ul class="step-row-list">
        {step.extract.map((e, j) => {
          const k = (f: string) => `steps.${i}.extract.${j}.${f}`;
          return (
            <li class="step-row extract-row">
              <input
                type="text"
                name={k('as')}
                value={e.as}
                placeholder="token"
                aria-label={`Step ${n}, extract ${j + 1}: name`}
                {...described(errors, k('as'))}
              />
              <select
                name={k('from')}
                aria-label={`Step ${n}, extract ${j + 1}: from`}
                {...described(errors, k('from'))}
              >
                <option value="json" selected={e.from === 'json'}>
                  JSON path
                </option>
                <option value="header" selected={e.from === 'header'}>
                  Header
                </option>
              </select>
              <input
                type="text"
                name={k('path')}
                value={e.path}
                placeholder="$.token"
                aria-label={`Step ${n}, extract ${j + 1}: path or header name`}
                {...described(errors, k('path'))}
              />
              {['as', 'from', 'path', ''].map((f) => (
                <Err errors={errors} k={f ? k(f) : `steps.${i}.extract.${j}`} />
              ))}
            </li>
          );
        })}
      </ul>
      <Button variant="quiet" small name="_op" value={`add-extract:${i}`} label={`Add an extract to step ${n}`}>
        + Extract
      </Button>
    </fieldset>
  );
}

/** A step's headers or body: typed anew or left empty to keep what is stored (never shown), or removed. */
function WriteOnlyField(props: {
  p: string;
  field: 'headers' | 'body';
  label: string;
  hint: string;
  value: string;
  stored: string | boolean;
  clear: boolean;
  errors: Record<string, string>;
}) {
  const name = `${props.p}${props.field}`;
  return (
    <StepField k={name} label={props.label} wide hint={props.hint} errors={props.errors}>
      {(a) => (
        <>
          <textarea
            {...a}
            rows={props.field === 'body' ? 3 : 2}
            value={props.value}
            placeholder={props.stored ? 'Unchanged' : undefined}
          />
          {props.stored && (
            <label class="check">
              <input type="checkbox" name={`${name}.clear`} checked={props.clear} />
              Remove the stored {props.field}
            </label>
          )}
        </>
      )}
    </StepField>
  );
}

function StepCard(props: { i: number; count: number; step: StepForm; errors: Record<string, string> }) {
  const { i, step, errors } = props;
  const n = i + 1;
  const p = `steps.${i}.`;
  return (
    <li class="step-card" id={`step-${n}`}>
      <fieldset>
        <legend>
          <span class="step-number">{n}</span> {step.name || `Step ${n}`}
        </legend>
        <input type="hidden" name={`${p}storedHeaders`} value={step.storedHeaders} />
        {step.storedBody && <input type="hidden" name={`${p}storedBody`} value="on" />}
        <Err errors={errors} k={`steps.${i}`} />
        <div class="step-toolbar">
          {i > 0 && (
            <Button variant="secondary" small name="_op" value={`up:${i}`} label={`Move step ${n} up`}>
              ↑ Up
            </Button>
          )}
          {i < props.count - 1 && (
            <Button variant="secondary" small name="_op" value={`down:${i}`} label={`Move step ${n} down`}>
              ↓ Down
            </Button>
          )}
          {props.count > 1 && (
            <Button variant="secondary" small name="_op" value={`remove:${i}`} label={`Remove step ${n}`}>
              Remove
            </Button>
          )}
        </div>
        <div class="form-grid step-grid">
          <StepField k={`${p}name`} label="Name" errors={errors}>
            {(a) => <input type="text" {...a} value={step.name} maxLength={API_STEP_LIMITS.nameMax} />}
          </StepField>
          <StepField k={`${p}method`} label="Method" errors={errors}>
            {(a) => (
              <select {...a}>
                {STEP_METHODS.map((m) => (
                  <option value={m} selected={step.method === m}>
                    {m}
                  </option>
                ))}
              </select>
            )}
          </StepField>
          <StepField
            k={`${p}url`}
            label="URL"
            wide
            hint="May use {{name}} (an earlier step's extract) and {{secrets.NAME}}."
            errors={errors}
          >
            {(a) => <input type="text" {...a} value={step.url} placeholder="https://api.example.com/login" />}
          </StepField>
          <WriteOnlyField
            p={p}
            field="headers"
            label="Headers"
            value={step.headers}
            stored={step.storedHeaders}
            clear={step.clearHeaders}
            errors={errors}
            hint={
              step.storedHeaders
                ? `Stored and never shown: ${step.storedHeaders}. Left empty, they are kept (by this step's name); typed, they replace them.`
                : 'One per line, Name: value. Stored encrypted and never shown again.'
            }
          />
          <WriteOnlyField
            p={p}
            field="body"
            label="Body"
            value={step.body}
            stored={step.storedBody}
            clear={step.clearBody}
            errors={errors}
            hint={
              step.storedBody
                ? 'A body is stored and never shown. Left empty, it is kept; typed, it replaces it.'
                : 'Sent as application/json unless a Content-Type header says otherwise. Stored encrypted.'
            }
          />
          <StepField
            k={`${p}expectedStatusCodes`}
            label="Expected status codes"
            hint="Comma-separated; empty: any 2xx or 3xx."
            errors={errors}
          >
            {(a) => <input type="text" {...a} value={step.expectedStatusCodes} inputMode="numeric" />}
          </StepField>
          <div class="field">
            <span class="label">Cleanup</span>
            <label class="check">
              <input type="checkbox" id={idOf(`${p}always`)} name={`${p}always`} checked={step.always} />
              Always run, even after an earlier step failed
            </label>
          </div>
        </div>
        <AssertionRows i={i} step={step} errors={errors} />
        <ExtractRows i={i} step={step} errors={errors} />
        <details class="step-schema" open={!!step.responseSchema.trim() || !!errors[`${p}responseSchema`]}>
          <summary>Response schema</summary>
          <StepField
            k={`${p}responseSchema`}
            label="JSON Schema the body must match"
            hint="2020-12 or draft-07, local $refs only; empty: none."
            wide
            errors={errors}
          >
            {(a) => <textarea {...a} rows={4} value={step.responseSchema} class="mono" />}
          </StepField>
        </details>
      </fieldset>
    </li>
  );
}

/** The steps of an api monitor: one card each, their buttons, and the secrets that can be named (never shown). */
export function StepsEditor(props: {
  steps: readonly StepForm[];
  errors: Record<string, string>;
  secrets: readonly string[];
}) {
  const { steps, errors } = props;
  return (
    <div class="steps-editor">
      <p class="hint" id="f-steps-hint">
        Steps run in order and stop at the first failure; cleanup steps run after a failure too. One timeout covers the
        whole run.{' '}
        {props.secrets.length ? (
          <>
            Workspace secrets you can name (their values are never shown):{' '}
            {props.secrets.map((s, i) => (
              <>
                {i > 0 && ', '}
                <code>{`{{secrets.${s}}}`}</code>
              </>
            ))}
            .
          </>
        ) : (
          <>
            The workspace has no secret yet: create one with <code>POST /api/v1/secrets</code> to name it as{' '}
            <code>{'{{secrets.NAME}}'}</code>.
          </>
        )}
      </p>
      <Err errors={errors} k="steps" />
      <ol class="step-list">
        {steps.map((step, i) => (
          <StepCard i={i} count={steps.length} step={step} errors={errors} />
        ))}
      </ol>
      {steps.length < API_STEP_LIMITS.stepsMax && (
        <Button variant="secondary" name="_op" value="add-step">
          + Add step
        </Button>
      )}
    </div>
  );
}
