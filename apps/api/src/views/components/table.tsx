import type { ComponentChildren } from 'preact';

export interface Column<T> {
  /** The header's text; also each cell's label when a narrow screen stacks the rows. */
  header: string;
  cell: (row: T) => ComponentChildren;
  class?: string;
  /** Shown to screen readers only (a column of actions still has a name). */
  hiddenHeader?: boolean;
  /** What the header cell shows instead of `header` (a sort link, a select-all box). */
  head?: ComponentChildren;
  /** The column the rows are sorted by, and which way. */
  sorted?: 'ascending' | 'descending' | undefined;
}

/**
 * A table of records with a caption. On narrow screens (CSS) each row becomes a card whose cells carry their column's
 * name (`data-label`), so nothing scrolls sideways. Rows have ids for partial updates.
 */
export function DataTable<T>(props: {
  caption: string;
  captionHidden?: boolean;
  columns: ReadonlyArray<Column<T>>;
  rows: readonly T[];
  rowId: (row: T) => string;
  rowAttrs?: (row: T) => Record<string, string>;
  class?: string;
}) {
  return (
    <table class={['table', 'stack', props.class].filter(Boolean).join(' ')}>
      <caption class={props.captionHidden ? 'visually-hidden' : undefined}>{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th scope="col" class={c.class} aria-sort={c.sorted}>
              {c.head ?? (c.hiddenHeader ? <span class="visually-hidden">{c.header}</span> : c.header)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr id={props.rowId(row)} {...(props.rowAttrs?.(row) ?? {})}>
            {props.columns.map((c) => (
              <td class={c.class} data-label={c.hiddenHeader ? undefined : c.header}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
