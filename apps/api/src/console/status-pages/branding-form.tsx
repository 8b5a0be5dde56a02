import { BRAND_URL_MAX, type StatusPageBranding } from '@statusvane/shared';
import type { StatusPageRecord } from '../../services/status-pages/status-page-record.js';
import { Field } from '../../views/components/form.js';
import { given } from '../page-forms.js';

/** The branding fields of the form, in the order shown. */
export const BRANDING_FORM_FIELDS = ['logoUrl', 'websiteUrl', 'brandColor', 'faviconUrl'] as const;

/** A page's branding as the form shows it ('' for none). */
export const brandingValuesOf = (page: StatusPageRecord): Record<string, string> =>
  Object.fromEntries(BRANDING_FORM_FIELDS.map((f) => [f, page[f] ?? '']));

/** The form's branding as PATCH takes it: an empty field removes that piece (null). */
export const brandingFromForm = (form: Record<string, string | undefined>): StatusPageBranding =>
  Object.fromEntries(BRANDING_FORM_FIELDS.map((f) => [f, given(form[f]) ?? null])) as StatusPageBranding;

/** The logo, website, colour and favicon of a status page, each with its rule beside it. */
export function BrandingFields(props: { values: Record<string, string>; errors: Record<string, string> }) {
  const { values: v, errors: e } = props;
  return (
    <>
      <Field
        name="logoUrl"
        label="Logo URL"
        type="url"
        maxLength={BRAND_URL_MAX}
        hint="An https image shown in the header, with the page's name as its text. Visitors load it from there."
        value={v.logoUrl}
        error={e.logoUrl}
      />
      <Field
        name="websiteUrl"
        label="Website"
        type="url"
        maxLength={BRAND_URL_MAX}
        hint="Your company's site: the logo and a header link go back to it."
        value={v.websiteUrl}
        error={e.websiteUrl}
      />
      <Field
        name="brandColor"
        label="Brand colour"
        maxLength={7}
        pattern="#[0-9a-fA-F]{6}"
        placeholder="#1d5fc4"
        hint="#rrggbb, for links and buttons. A shade of it is used where it would be hard to read."
        value={v.brandColor}
        error={e.brandColor}
      />
      <Field
        name="faviconUrl"
        label="Favicon URL"
        type="url"
        maxLength={BRAND_URL_MAX}
        hint="An https image for the browser tab."
        value={v.faviconUrl}
        error={e.faviconUrl}
      />
    </>
  );
}
