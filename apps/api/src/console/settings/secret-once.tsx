/**
 * A secret shown once (a new token, a wall link, a webhook's signing secret): in a box with a copy button (where
 * JavaScript runs: the enhancement script's data-copy) and the warning that it will not be shown again.
 */
export function SecretOnce(props: { id: string; label: string; value: string; note?: string }) {
  return (
    <div class="secret-once" role="region" aria-labelledby={`${props.id}-label`}>
      <p id={`${props.id}-label`} class="secret-label">
        {props.label}
      </p>
      <div class="secret-row">
        <code id={props.id} class="secret-value">
          {props.value}
        </code>
        <button type="button" class="btn btn-secondary btn-sm" data-copy={props.id} data-js-only>
          Copy
        </button>
      </div>
      <p class="secret-note">{props.note ?? 'Copy it now: it is shown only this once and stored only as a hash.'}</p>
    </div>
  );
}
