import type { ComponentRecord } from '../../services/components/component-record.js';
import type { StatusPageLayout } from '../../services/status-pages/status-page-layout-record.js';
import { Field } from '../../views/components/form.js';

/** Empty section rows the layout form offers beyond the page's own, to add sections without JavaScript. */
export const EXTRA_SECTIONS = 2;

/**
 * The layout form's values from the page's layout: each section's name, and for each component its section (its
 * index; empty: not on the page) and its place in it.
 */
export function layoutValuesOf(layout: StatusPageLayout): Record<string, string> {
  const v: Record<string, string> = {};
  layout.sections.forEach((s, i) => {
    v[`section.${i}`] = s.name;
    s.components.forEach((c, j) => {
      v[`place.${c.id}`] = String(i);
      v[`order.${c.id}`] = String(j + 1);
    });
  });
  return v;
}

/**
 * `sections` as the API takes them, from the form: the named sections in order, each with the components placed in
 * it, by their order number then by name. No section named: `[]`, every component shown, ungrouped.
 */
export function sectionsFromForm(form: Record<string, string>, components: readonly ComponentRecord[], rows: number) {
  const sections: Array<{ name: string; componentIds: string[]; at: number }> = [];
  for (let i = 0; i < rows; i++) {
    const name = (form[`section.${i}`] ?? '').trim();
    if (name) sections.push({ name, componentIds: [], at: i });
  }
  const placed = components
    .map((c) => ({ c, section: form[`place.${c.id}`] ?? '', order: Number(form[`order.${c.id}`] || 1e9) }))
    .filter((p) => p.section !== '')
    .sort((a, b) => a.order - b.order || a.c.name.localeCompare(b.c.name));
  for (const p of placed) sections.find((s) => String(s.at) === p.section)?.componentIds.push(p.c.id);
  return sections.map(({ name, componentIds }) => ({ name, componentIds }));
}

/** Section names, then every component with its section and place: a layout edited without JavaScript. */
export function LayoutFields(props: {
  values: Record<string, string>;
  errors: Record<string, string>;
  components: readonly ComponentRecord[];
  rows: number;
}) {
  const { values: v } = props;
  const names = Array.from({ length: props.rows }, (_, i) => v[`section.${i}`] ?? '');
  // As the page shows them: by section and place, then the components not on it, by name.
  const rank = (c: ComponentRecord) => [
    v[`place.${c.id}`] ? Number(v[`place.${c.id}`]) : Infinity,
    Number(v[`order.${c.id}`] || Infinity),
  ];
  const rows = [...props.components].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    return ra[0]! - rb[0]! || ra[1]! - rb[1]! || a.name.localeCompare(b.name);
  });
  return (
    <>
      <fieldset class="field checks">
        <legend>Sections</legend>
        <p class="hint">
          In the order the page shows them. Empty a name to remove its section; name none to show every component,
          ungrouped.
        </p>
        <div class="row-form">
          {names.map((name, i) => (
            <Field
              name={`section.${i}`}
              label={`Section ${i + 1}`}
              maxLength={200}
              value={name}
              error={props.errors[`sections.${i}`]}
            />
          ))}
        </div>
      </fieldset>
      {props.errors.sections && <p class="field-error">{props.errors.sections}</p>}
      <table class="table stack layout-table">
        <caption>Components on the page</caption>
        <thead>
          <tr>
            <th scope="col">Component</th>
            <th scope="col">Section</th>
            <th scope="col">Place</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr>
              <td class="name" data-label="Component">
                {c.name}
              </td>
              <td data-label="Section">
                <label class="visually-hidden" htmlFor={`place-${c.id}`}>
                  Section of {c.name}
                </label>
                <select id={`place-${c.id}`} name={`place.${c.id}`}>
                  <option value="">Not on this page</option>
                  {names.map((name, i) => (
                    <option value={String(i)} selected={v[`place.${c.id}`] === String(i)}>
                      {name || `Section ${i + 1}`}
                    </option>
                  ))}
                </select>
              </td>
              <td data-label="Place">
                <label class="visually-hidden" htmlFor={`order-${c.id}`}>
                  Place of {c.name} in its section
                </label>
                <input
                  id={`order-${c.id}`}
                  name={`order.${c.id}`}
                  type="number"
                  min={1}
                  class="narrow"
                  value={v[`order.${c.id}`] ?? ''}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
