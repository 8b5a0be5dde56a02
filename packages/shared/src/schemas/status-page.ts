import { z } from 'zod';
import { uuidInputSchema } from './input-fields.js';
import { shownText } from './shown-text.js';

export const STATUS_PAGE_LIMITS = {
  nameMax: 200,
  vanityUrlMax: 300,
  slugMin: 3,
  slugMax: 63,
  sectionsMax: 50,
  sectionNameMax: 200,
  passwordMin: 8,
  passwordMax: 200,
} as const;
const L = STATUS_PAGE_LIMITS;

/** Slugs that would shadow product paths or invite phishing; refused with 409 like a taken slug. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'api',
  'www',
  'app',
  'admin',
  'status',
  'login',
  'signup',
  'dashboard',
  'docs',
  'help',
  'support',
  'static',
  'assets',
  'ping',
  'health',
  'metrics',
]);

/**
 * Turns a vanity URL (or any label) into a slug, following the decisions word for word: lower-case; strip a
 * leading scheme (any `name://`, RFC 3986: a letter, then letters, digits, `+`, `.` or `-`) and then `www.`;
 * accents are folded to their base letter (é -> e); ASCII letters, digits and hyphens are kept as they are (so
 * `a--b` stays `a--b`); every run of other characters becomes one hyphen; hyphens are trimmed from both ends; at
 * most 63 characters, with the hyphens a cut leaves at the end trimmed again. The caller decides whether the
 * result is long enough.
 */
export function normaliseSlug(input: string): string {
  let s = input.trim().toLowerCase();
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^www\./, '');
  s = s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase(); // again: some letters only decompose to capitals (ℍ -> H)
  s = s.replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return s.slice(0, L.slugMax).replace(/-+$/, '');
}

/** The shape every stored slug has (what normaliseSlug produces, at least 3 characters). */
export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{1,61})[a-z0-9]$/;

/** `vanityUrl` parsed straight to its slug; too short after normalising is a 400 on vanityUrl. */
const vanityUrl = z
  .string()
  .max(L.vanityUrlMax)
  .transform((raw, ctx) => {
    const slug = normaliseSlug(raw);
    if (slug.length < L.slugMin) {
      ctx.addIssue({
        code: 'custom',
        message:
          slug.length === 0
            ? 'has no letters or digits to make a slug from'
            : `makes the slug "${slug}", shorter than ${L.slugMin} characters`,
      });
      return z.NEVER;
    }
    return slug;
  });

/** A status page's name: create, PATCH and config documents. */
export const statusPageNameSchema = z.string().trim().min(1).max(L.nameMax).superRefine(shownText);

/** The longest branding URL taken (a logo, favicon or website address). */
export const BRAND_URL_MAX = 2048;

/**
 * A branding URL: trimmed, absolute, of one of `protocols`, with a host and without credentials; stored as the
 * URL parser writes it (`HTTPS://Acme.com` is `https://acme.com/`). Images must be https: they are linked, not
 * proxied, and a page served over https would not load them otherwise (docs/decisions.md, "Status page branding").
 */
function brandUrl(protocols: readonly string[], what: string) {
  return z
    .string()
    .trim()
    .max(BRAND_URL_MAX)
    .transform((value, ctx) => {
      let url: URL | null = null;
      try {
        url = new URL(value);
      } catch {
        // reported below
      }
      const problem = !url
        ? `must be an absolute ${what} URL`
        : !protocols.includes(url.protocol)
          ? `must be an ${what} URL`
          : !url.hostname
            ? 'the URL has no host'
            : url.username || url.password
              ? 'credentials in the URL are not allowed'
              : null;
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return url!.href;
    });
}

/** `#rrggbb`, stored lower-case. */
export const BRAND_COLOR_RE = /^#[0-9a-f]{6}$/;

/**
 * A status page's branding, all optional and nullable (null: none): a logo and a favicon (https URLs), the brand
 * colour (`#rrggbb`), and the company's website the logo links back to (http or https).
 */
export const statusPageBrandingFields = {
  logoUrl: brandUrl(['https:'], 'https').nullable(),
  faviconUrl: brandUrl(['https:'], 'https').nullable(),
  brandColor: z
    .string()
    .trim()
    .toLowerCase()
    .regex(BRAND_COLOR_RE, 'must be a colour written #rrggbb, such as #1d5fc4')
    .nullable(),
  websiteUrl: brandUrl(['https:', 'http:'], 'http or https').nullable(),
};
export type StatusPageBranding = { [K in keyof typeof statusPageBrandingFields]: string | null };
export const BRANDING_FIELDS = Object.keys(statusPageBrandingFields) as Array<keyof StatusPageBranding>;

/** POST /status-pages. The output carries the normalised slug; reserved and taken slugs are the service's 409. */
export const createStatusPageSchema = z
  .object({
    vanityUrl,
    name: statusPageNameSchema,
    isPublic: z.boolean().default(true),
    logoUrl: statusPageBrandingFields.logoUrl.optional(),
    faviconUrl: statusPageBrandingFields.faviconUrl.optional(),
    brandColor: statusPageBrandingFields.brandColor.optional(),
    websiteUrl: statusPageBrandingFields.websiteUrl.optional(),
  })
  .strict()
  .transform(({ vanityUrl: slug, ...rest }) => ({ ...rest, slug }));
export type CreateStatusPageInput = z.infer<typeof createStatusPageSchema>;

/** One section of `status-page arrange --json`: a heading and its components in render order. */
export const layoutSectionInputSchema = z
  .object({
    name: z.string().trim().min(1).max(L.sectionNameMax).superRefine(shownText),
    componentIds: z.array(uuidInputSchema).max(500),
  })
  .strict();
export const layoutInputSchema = z.array(layoutSectionInputSchema).max(L.sectionsMax);
export type LayoutInput = z.infer<typeof layoutInputSchema>;

/** A new slug for PATCH /status-pages/{id}: the same rules as `vanityUrl` on create (normalised, at least 3 characters). */
export const slugInputSchema = vanityUrl;

/**
 * A custom domain: a DNS host name of at least two labels, lower-case, without scheme, port, path or trailing dot
 * (what the `Host` header carries, minus the port). IP addresses are not domains.
 */
export const CUSTOM_DOMAIN_RE =
  /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** `customDomain` in a PATCH: trimmed and lower-cased, then the host name rule; null clears it. */
export const customDomainInputSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(CUSTOM_DOMAIN_RE, 'Must be a host name such as status.example.com (no scheme, port or path)')
  .nullable();
