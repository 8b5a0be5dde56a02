import type { ComponentChildren } from 'preact';

/** The hidden CSRF field every state-changing form carries (console/csrf.ts checks it). */
export const CSRF_FIELD = '_csrf';

/**
 * A form that writes: POST, with the CSRF token. Every console write goes through one, so none can forget the token.
 */
export function PostForm(props: {
  action: string;
  csrf: string;
  children: ComponentChildren;
  class?: string;
  label?: string;
}) {
  return (
    <form method="post" action={props.action} class={props.class} aria-label={props.label}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      {props.children}
    </form>
  );
}

export interface FieldProps {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'search' | 'url' | 'number' | 'datetime-local';
  value?: string | undefined;
  /** The 400 issue of this field, shown beside it and announced with it. */
  error?: string | undefined;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  inputMode?: 'numeric' | 'text' | 'email';
  autofocus?: boolean;
  pattern?: string;
  min?: number;
  max?: number;
  placeholder?: string;
}

/**
 * The input's attributes. Preact's types discriminate inputs by `type` (a password input takes no `role` ...); the
 * field's types all render as text boxes, so one shape is given for all of them.
 */
function inputAttributes(props: FieldProps, id: string, describedBy: string | undefined) {
  return {
    id,
    name: props.name,
    type: (props.type ?? 'text') as 'text',
    value: props.value,
    autocomplete: props.autocomplete,
    required: props.required,
    minLength: props.minLength,
    maxLength: props.maxLength,
    inputMode: props.inputMode,
    autofocus: props.autofocus,
    pattern: props.pattern,
    min: props.min,
    max: props.max,
    placeholder: props.placeholder,
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
  };
}

/**
 * A labelled input with its hint and its error beside it: the error is tied to the input (aria-describedby,
 * aria-invalid), so a screen reader reads it when the field takes focus.
 */
export function Field(props: FieldProps) {
  const ids = describedBy(props.name, props.hint, props.error);
  return (
    <FieldFrame ids={ids} label={props.label} hint={props.hint} error={props.error}>
      <input {...inputAttributes(props, ids.id, ids.describedBy)} />
    </FieldFrame>
  );
}

/** The ids a field's hint and error get, and the aria-describedby that ties them to the control. */
function describedBy(name: string, hint: unknown, error: unknown) {
  const id = `f-${name}`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return { id, hintId, errorId, describedBy: [errorId, hintId].filter(Boolean).join(' ') || undefined };
}

/** A field's label, hint, control and error, in the order Field shows them. */
function FieldFrame(props: {
  ids: ReturnType<typeof describedBy>;
  label: string;
  hint?: string | undefined;
  error?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label htmlFor={props.ids.id}>{props.label}</label>
      {props.hint && (
        <p id={props.ids.hintId} class="hint">
          {props.hint}
        </p>
      )}
      {props.children}
      {props.error && (
        <p id={props.ids.errorId} class="field-error">
          {props.error}
        </p>
      )}
    </div>
  );
}

/** A labelled multi-line text (a message, a body), with its hint and its 400 issue beside it. */
export function TextAreaField(props: {
  name: string;
  label: string;
  value?: string | undefined;
  error?: string | undefined;
  hint?: string;
  rows?: number;
  maxLength?: number;
  required?: boolean;
}) {
  const ids = describedBy(props.name, props.hint, props.error);
  return (
    <FieldFrame ids={ids} label={props.label} hint={props.hint} error={props.error}>
      <textarea
        id={ids.id}
        name={props.name}
        rows={props.rows ?? 4}
        maxLength={props.maxLength}
        required={props.required}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={ids.describedBy}
      >
        {props.value ?? ''}
      </textarea>
    </FieldFrame>
  );
}

export interface SelectOption {
  value: string;
  label: string;
}

/** A labelled choice among options, with its hint and its 400 issue beside it. */
export function SelectField(props: {
  name: string;
  label: string;
  options: readonly SelectOption[];
  value?: string | undefined;
  error?: string | undefined;
  hint?: string;
  /** Sends the form when changed, where JavaScript runs (the form keeps its button for everyone else). */
  autosubmit?: boolean;
}) {
  const ids = describedBy(props.name, props.hint, props.error);
  return (
    <FieldFrame ids={ids} label={props.label} hint={props.hint} error={props.error}>
      <select
        id={ids.id}
        name={props.name}
        data-autosubmit={props.autosubmit ? '' : undefined}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={ids.describedBy}
      >
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

/**
 * A group of checkboxes for a list of ids (the components a window or an incident covers). Each box is its own field,
 * `<name>.<value>`, because the console's form parser keeps one value per name; readCheckedValues reads them back.
 */
export function CheckboxGroup(props: {
  name: string;
  legend: string;
  options: readonly SelectOption[];
  checked: ReadonlySet<string>;
  error?: string | undefined;
  hint?: string;
}) {
  const ids = describedBy(props.name, props.hint, props.error);
  return (
    <fieldset
      class={props.error ? 'field checks has-error' : 'field checks'}
      aria-describedby={ids.describedBy}
      id={ids.id}
    >
      <legend>{props.legend}</legend>
      {props.hint && (
        <p id={ids.hintId} class="hint">
          {props.hint}
        </p>
      )}
      <div class="check-list">
        {props.options.map((o) => (
          <label class="check">
            <input type="checkbox" name={`${props.name}.${o.value}`} value="on" checked={props.checked.has(o.value)} />
            <span>{o.label}</span>
          </label>
        ))}
      </div>
      {props.error && (
        <p id={ids.errorId} class="field-error">
          {props.error}
        </p>
      )}
    </fieldset>
  );
}

/** The values of a CheckboxGroup that were checked, in the order the form sent them. */
export function readCheckedValues(form: Record<string, string>, name: string): string[] {
  const prefix = `${name}.`;
  return Object.keys(form)
    .filter((k) => k.startsWith(prefix) && form[k] === 'on')
    .map((k) => k.slice(prefix.length));
}

/** One labelled checkbox (a yes/no setting). */
export function CheckboxField(props: { name: string; label: string; checked: boolean; hint?: string }) {
  const hintId = props.hint ? `f-${props.name}-hint` : undefined;
  return (
    <div class="field">
      <label class="check">
        <input
          type="checkbox"
          id={`f-${props.name}`}
          name={props.name}
          value="on"
          checked={props.checked}
          aria-describedby={hintId}
        />
        <span>{props.label}</span>
      </label>
      {props.hint && (
        <p id={hintId} class="hint">
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** The record's version, carried by its edit form (forms cannot send If-Match): a stale one answers 409. */
export function VersionField({ version }: { version: number }) {
  return <input type="hidden" name="version" value={String(version)} />;
}
