import type { ComponentChildren } from 'preact';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'quiet';

const classes = (variant: ButtonVariant, small?: boolean, extra?: string) =>
  ['btn', `btn-${variant}`, small ? 'btn-sm' : '', extra ?? ''].filter(Boolean).join(' ');

/** A form's button. Submits unless `type` says otherwise. */
export function Button(props: {
  children: ComponentChildren;
  variant?: ButtonVariant;
  small?: boolean;
  type?: 'submit' | 'button';
  name?: string;
  value?: string;
  /** Asks for confirmation first when JavaScript runs (the enhancement script reads it). */
  confirm?: string;
  label?: string;
  class?: string;
}) {
  return (
    <button
      type={props.type ?? 'submit'}
      class={classes(props.variant ?? 'primary', props.small, props.class)}
      name={props.name}
      value={props.value}
      data-confirm={props.confirm}
      aria-label={props.label}
    >
      {props.children}
    </button>
  );
}

/** A link that looks like a button (navigation, never a write). */
export function LinkButton(props: {
  href: string;
  children: ComponentChildren;
  variant?: ButtonVariant;
  small?: boolean;
}) {
  return (
    <a href={props.href} class={classes(props.variant ?? 'secondary', props.small)}>
      {props.children}
    </a>
  );
}
