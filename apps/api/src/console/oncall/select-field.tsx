/**
 * A labelled select with its hint and its error beside it, as `Field` (views/components/form.tsx) draws an input:
 * the error tied to the control (aria-describedby, aria-invalid).
 */
export function SelectField(props: {
  name: string;
  label: string;
  value?: string | undefined;
  options: ReadonlyArray<{ value: string; label: string }>;
  error?: string | undefined;
  hint?: string | undefined;
}) {
  const id = `f-${props.name}`;
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label htmlFor={id}>{props.label}</label>
      {props.hint && (
        <p id={hintId} class="hint">
          {props.hint}
        </p>
      )}
      <select
        id={id}
        name={props.name}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={[errorId, hintId].filter(Boolean).join(' ') || undefined}
      >
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.error && (
        <p id={errorId} class="field-error">
          {props.error}
        </p>
      )}
    </div>
  );
}
