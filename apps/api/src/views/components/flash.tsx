import type { ComponentChildren } from 'preact';

export type FlashKind = 'notice' | 'error';

/**
 * A message at the top of a page: what just happened (a notice, announced politely) or what went wrong (an error,
 * announced at once).
 */
export function Flash({ kind, children }: { kind: FlashKind; children: ComponentChildren }) {
  return (
    <div class={`flash flash-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
