import type { ComponentChildren } from 'preact';

/** What a list shows when it has nothing to show: a title, a sentence on why, and what to do next. */
export function EmptyState(props: { title: string; children?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{props.title}</p>
      {props.children && <p>{props.children}</p>}
      {props.action}
    </div>
  );
}
