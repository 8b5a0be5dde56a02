import type { MaintenanceRecord } from '../../services/maintenance/maintenance-record.js';
import type { ComponentRecord } from '../../services/components/component-record.js';
import { CheckboxGroup, Field, readCheckedValues, TextAreaField } from '../../views/components/form.js';

/** The state of a window in words, with a shape beside them (never colour alone). */
const STATE_WORDS: Record<MaintenanceRecord['status'], string> = {
  scheduled: 'Scheduled',
  in_progress: 'In progress',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

export function MaintenanceBadge({ status }: { status: MaintenanceRecord['status'] }) {
  return (
    <span class={`badge maintenance-${status}`}>
      <span class="dot" aria-hidden="true" />
      {STATE_WORDS[status]}
    </span>
  );
}

/** `2026-11-28T20:00` (what a datetime-local field holds) of an instant, in UTC. */
export const toLocalField = (iso: string) => iso.slice(0, 16);

/**
 * A datetime-local value (`2026-11-28T20:00`, read as UTC: the form says so) as the API's ISO 8601 with an offset;
 * anything else is passed on as typed, so the API's 400 names the field.
 */
export function fromLocalField(value: string | undefined): string {
  const v = (value ?? '').trim();
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(v) ? `${v.length === 16 ? `${v}:00` : v}Z` : v;
}

export const MAINTENANCE_FIELDS = ['title', 'body', 'startsAt', 'endsAt', 'componentIds'];

/** A window's fields as the API takes them, from the form. */
export function maintenanceBodyOf(form: Record<string, string>) {
  return {
    title: form.title ?? '',
    body: form.body ?? '',
    startsAt: fromLocalField(form.startsAt),
    endsAt: fromLocalField(form.endsAt),
    componentIds: readCheckedValues(form, 'componentIds'),
  };
}

/** The form's values drawn from a window. */
export function maintenanceValuesOf(m: MaintenanceRecord): Record<string, string> {
  const v: Record<string, string> = {
    title: m.title,
    body: m.body,
    startsAt: toLocalField(m.startsAt),
    endsAt: toLocalField(m.endsAt),
  };
  for (const c of m.components) v[`componentIds.${c.id}`] = 'on';
  return v;
}

/** Title, public body, start and end (UTC), and the components it covers. */
export function MaintenanceFields(props: {
  values: Record<string, string>;
  errors: Record<string, string>;
  components: readonly ComponentRecord[];
}) {
  const { values: v, errors: e } = props;
  return (
    <>
      <Field name="title" label="Title" required maxLength={200} value={v.title} error={e.title} />
      <TextAreaField
        name="body"
        label="What happens (public)"
        maxLength={4000}
        hint="Shown on the status pages and mailed to their subscribers."
        value={v.body}
        error={e.body}
      />
      <div class="row-form">
        <Field
          name="startsAt"
          label="Starts (UTC)"
          type="datetime-local"
          required
          value={v.startsAt}
          error={e.startsAt}
        />
        <Field name="endsAt" label="Ends (UTC)" type="datetime-local" required value={v.endsAt} error={e.endsAt} />
      </div>
      {props.components.length > 0 && (
        <CheckboxGroup
          name="componentIds"
          legend="Components"
          hint="None checked: the whole workspace. Monitors of these components page nobody while it runs."
          options={props.components.map((c) => ({ value: c.id, label: c.name }))}
          checked={new Set(readCheckedValues(v, 'componentIds'))}
          error={e.componentIds}
        />
      )}
    </>
  );
}
