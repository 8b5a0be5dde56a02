import { BRAND_URL_MAX, type StatusPageBranding } from '@statusvane/shared';
import type { StatusPageRecord } from '../../services/status-pages/status-page-record.js';
import { Field } from '../../views/components/form.js';
import { given } from '../page-forms.js';

/** Each field's label, hint and input rule, in the order shown. */
const FIELDS: ReadonlyArray<{
  name: keyof StatusPageBranding;
  label: string;
  hint: string;
  colour?: boolean;
}> = [
  {
    name: 'logoUrl',
    label: 'Logo URL',
    hint: "An https image shown in the header, with the page's name as its text. Visitors load it from there.",
  },
  { name: 'websiteUrl', label: 'Website', hint: "Your company's site: the logo and a header link go back to it." },
  {
    name: 'brandColor',
    label: 'Brand colour',
    hint: '#rrggbb, for links and buttons. A shade of it is used where it would be hard to read.',
    colour: true,
  },
  { name: 'faviconUrl', label: 'Favicon URL', hint: 'An https image for the browser tab.' },
];

/** The branding fields of the form, in the order shown. */
export const BRANDING_FORM_FIELDS = FIELDS.map((f) => f.name);

/** A page's branding as the form shows it ('' for none). */
export const brandingValuesOf = (page: StatusPageRecord): Record<string, string> =>
  Object.fromEntries(BRANDING_FORM_FIELDS.map((f) => [f, page[f] ?? '']));

/** The form's branding as PATCH takes it: an empty field removes that piece (null). */
export const brandingFromForm = (form: Record<string, string | undefined>): StatusPageBranding =>
  Object.fromEntries(BRANDING_FORM_FIELDS.map((f) => [f, given(form[f]) ?? null])) as StatusPageBranding;

/** The logo, website, colour and favicon of a status page, each with its rule beside it. */
export function BrandingFields(props: { values: Record<string, string>; errors: Record<string, string> }) {
  return (
    <>
      {FIELDS.map((f) => (
        <Field
          name={f.name}
          label={f.label}
          hint={f.hint}
          {...(f.colour
            ? { maxLength: 7, pattern: '#[0-9a-fA-F]{6}', placeholder: '#1d5fc4' }
            : { type: 'url' as const, maxLength: BRAND_URL_MAX })}
          value={props.values[f.name]}
          error={props.errors[f.name]}
        />
      ))}
    </>
  );
}
