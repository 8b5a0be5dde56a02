import type { Pagination } from '@statusvane/shared';
import { LinkButton } from './button.js';

/**
 * Where a paged list stands ("Page 2 of 5") and links to the pages either side; nothing when it fits on one page.
 * `newest` lists (the audit log, deliveries) call their links Newer and Older.
 */
export function Pager(props: {
  /** What the pages are of, for the landmark's name: "Pages of <label>". */
  label: string;
  pagination: Pagination;
  href: (page: number) => string;
  /** Beside the page number: "(12 incidents)". */
  count?: string;
  newest?: boolean;
}) {
  const p = props.pagination;
  if (p.totalPages <= 1) return null;
  return (
    <nav class="pagination" aria-label={`Pages of ${props.label}`}>
      <span>
        Page {p.page} of {p.totalPages}
        {props.count ? ` (${props.count})` : ''}
      </span>
      <span class="links">
        {p.page > 1 && (
          <LinkButton small href={props.href(p.page - 1)}>
            {props.newest ? 'Newer' : 'Previous'}
          </LinkButton>
        )}
        {p.page < p.totalPages && (
          <LinkButton small href={props.href(p.page + 1)}>
            {props.newest ? 'Older' : 'Next'}
          </LinkButton>
        )}
      </span>
    </nav>
  );
}
