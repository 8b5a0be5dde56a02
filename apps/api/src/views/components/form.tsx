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
  type?: 'text' | 'email' | 'password' | 'search';
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
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
  };
}

/**
 * A labelled input with its hint and its error beside it: the error is tied to the input (aria-describedby,
 * aria-invalid), so a screen reader reads it when the field takes focus.
 */
export function Field(props: FieldProps) {
  const id = `f-${props.name}`;
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label htmlFor={id}>{props.label}</label>
      {props.hint && (
        <p id={hintId} class="hint">
          {props.hint}
        </p>
      )}
      <input {...inputAttributes(props, id, describedBy)} />
      {props.error && (
        <p id={errorId} class="field-error">
          {props.error}
        </p>
      )}
    </div>
  );
}
