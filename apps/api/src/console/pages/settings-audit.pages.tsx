import { z } from 'zod';
import {
  auditEventListQuerySchema,
  listAuditEvents,
  type AuditEventRecord,
} from '../../services/audit/list-audit-events.js';
import { RESOURCE_TYPES } from '../../services/audit/record-write.js';
import { Button } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Pager } from '../../views/components/pager.js';
import { SelectField } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { dateTimeUtc } from '../../views/format.js';
import { definePage, type PageDef, type WorkspaceRequest } from '../define-page.js';
import { queryOf } from '../page-forms.js';
import { SettingsLayout } from '../settings/settings-layout.js';

const PER_PAGE = 50;
const query = z
  .object({
    resourceType: z.enum(['', ...RESOURCE_TYPES]).optional(),
    page: z.coerce.number().int().min(1).max(100_000).optional(),
  })
  .strict();

/** Fields a row shows before the rest fold under "more" (a created monitor names some twenty). */
const FIELDS_SHOWN = 4;
/** A long value (a status page's sections, a ladder) is cut here; the API's GET /audit-events has it whole. */
const VALUE_CHARS = 160;

/** What changed, in one line per field: `intervalSeconds: 60 → 30`; a created record's fields as their values. */
function Changes({ e }: { e: AuditEventRecord }) {
  if (!e.changes) return <span class="muted">—</span>;
  const show = (v: unknown) => {
    const text = v === null || v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v);
    return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
  };
  const created = e.action.endsWith('.created');
  const lines = Object.entries(e.changes).map(([field, c]) => (
    <li>
      <span class="mono">{field}</span>: {created ? show(c.to) : `${show(c.from)} → ${show(c.to)}`}
    </li>
  ));
  const folded = lines.length > FIELDS_SHOWN + 1 ? lines.slice(FIELDS_SHOWN) : [];
  return (
    <>
      <ul class="changes">{folded.length ? lines.slice(0, FIELDS_SHOWN) : lines}</ul>
      {folded.length > 0 && (
        <details class="changes-more">
          <summary>{folded.length} more fields</summary>
          <ul class="changes">{folded}</ul>
        </details>
      )}
    </>
  );
}

/** The audit log: who changed what, newest first, filtered by kind of record. */
async function auditPage(req: WorkspaceRequest) {
  const q = queryOf(query, req.query, 'audit log');
  const page = q.page ?? 1;
  const result = await listAuditEvents(req.deps, {
    ctx: req.ctx,
    input: auditEventListQuerySchema.parse({
      page: String(page),
      perPage: String(PER_PAGE),
      ...(q.resourceType ? { resourceType: q.resourceType } : {}),
    }),
  });
  const href = (p: number) => {
    const params = new URLSearchParams();
    if (q.resourceType) params.set('resourceType', q.resourceType);
    if (p > 1) params.set('page', String(p));
    const qs = params.toString();
    return `${req.base}/settings/audit${qs ? `?${qs}` : ''}`;
  };
  const columns: Array<Column<AuditEventRecord>> = [
    { header: 'When', class: 'when', cell: (e) => <time datetime={e.at}>{dateTimeUtc(new Date(e.at))}</time> },
    {
      header: 'Who',
      class: 'who',
      cell: (e) => (
        <>
          {e.actor.name} <span class="tag">{e.actor.type}</span>
        </>
      ),
    },
    { header: 'What', class: 'name', cell: (e) => <span class="mono">{e.action}</span> },
    { header: 'Changes', class: 'changes-cell', cell: (e) => <Changes e={e} /> },
  ];
  const p = result.pagination;
  return {
    view: (
      <SettingsLayout
        req={req}
        section="audit"
        title="Audit log"
        lead="Every change made in this workspace, by whom (secrets show as <redacted>)."
      >
        <form class="filters" method="get" action={`${req.base}/settings/audit`} aria-label="Filter the audit log">
          <div class="status-select">
            <SelectField
              name="resourceType"
              label="Record"
              value={q.resourceType ?? ''}
              autosubmit
              options={[
                { value: '', label: 'Every kind' },
                ...RESOURCE_TYPES.map((t) => ({ value: t, label: t.replace(/_/g, ' ') })),
              ]}
            />
          </div>
          <div class="field">
            <Button variant="secondary">Apply</Button>
          </div>
        </form>
        {result.data.length === 0 ? (
          <EmptyState title="Nothing recorded yet" />
        ) : (
          <DataTable
            caption="Audit events"
            captionHidden
            class="audit"
            columns={columns}
            rows={result.data}
            rowId={(e) => `event-${e.id}`}
          />
        )}
        <Pager label="the audit log" pagination={p} href={href} newest />
      </SettingsLayout>
    ),
  };
}

/** Settings: the audit log (managers). */
export function auditPages(): PageDef[] {
  return [definePage({ method: 'get', path: '/settings/audit', access: 'workspace', handler: auditPage })];
}
