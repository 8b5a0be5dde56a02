/**
 * Templates of api steps and http monitors: `{{name}}` takes an earlier step's extract, `{{secrets.NAME}}` a workspace
 * secret. Pure: parsing (to judge a monitor at write time) and rendering (at run time), no I/O.
 *
 * - In api steps every `{{...}}` is a template: one naming neither an extract nor a secret is refused at write time.
 * - In an http monitor's headers and body only `{{secrets.NAME}}` is one (an http monitor has no extracts); any other
 *   `{{...}}` is sent as written, as it was before templates existed.
 * - Values are inserted as they are (no encoding): a url built from an extract is judged by the SSRF guard when it is
 *   dialled, like any other; a header value that would carry CR or LF is refused by the step (header injection).
 */

/** `[A-Z][A-Z0-9_]{0,63}`: a workspace secret's name. */
export const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
/** `[a-z][a-zA-Z0-9_]{0,63}`: an extract's name (`as`), never `secrets`. */
export const EXTRACT_NAME = /^[a-z][a-zA-Z0-9_]{0,63}$/;

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;

export type TemplateRef =
  { kind: 'secret'; name: string } | { kind: 'extract'; name: string } | { kind: 'invalid'; text: string };

/** The templates of `text`, in order. */
export function templateRefs(text: string): TemplateRef[] {
  const out: TemplateRef[] = [];
  for (const m of text.matchAll(TEMPLATE)) {
    const inner = m[1]!;
    if (inner.startsWith('secrets.')) {
      const name = inner.slice('secrets.'.length);
      out.push(SECRET_NAME.test(name) ? { kind: 'secret', name } : { kind: 'invalid', text: m[0] });
    } else if (EXTRACT_NAME.test(inner) && inner !== 'secrets') out.push({ kind: 'extract', name: inner });
    else out.push({ kind: 'invalid', text: m[0] });
  }
  return out;
}

/** `text` with every template replaced by `filler` (to judge the format of what surrounds them). */
export function fillTemplates(text: string, filler: string): string {
  return text.replace(TEMPLATE, filler);
}

/** The secret names `{{secrets.NAME}}` of the given texts (sorted, each once). */
export function secretNamesIn(texts: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const ref of templateRefs(text)) if (ref.kind === 'secret') names.add(ref.name);
  return [...names].sort();
}

/** What rendering needs: the extracts so far and the secrets loaded for the run. */
export interface TemplateValues {
  extracts: ReadonlyMap<string, string>;
  secrets: ReadonlyMap<string, string>;
}

export type Rendered = { ok: true; text: string; secretsUsed: string[] } | { ok: false; reason: string };

/**
 * `text` with its templates filled in. `secretsOnly`: only `{{secrets.NAME}}` is a template (http monitors). An
 * extract an earlier step did not produce (it was skipped, or its value was missing) or a secret that is gone fails
 * with a reason naming it, never its value.
 */
export function renderTemplate(text: string, values: TemplateValues, secretsOnly = false): Rendered {
  const used = new Set<string>();
  let missing: string | null = null;
  const out = text.replace(TEMPLATE, (whole, inner: string) => {
    if (missing !== null) return whole;
    if (inner.startsWith('secrets.')) {
      const name = inner.slice('secrets.'.length);
      const value = values.secrets.get(name);
      if (value === undefined) {
        missing = `config_error: secret ${name} does not exist`;
        return whole;
      }
      used.add(name);
      return value;
    }
    if (secretsOnly) return whole;
    const value = values.extracts.get(inner);
    if (value === undefined) {
      missing = `extract_missing: {{${inner}}} has no value`;
      return whole;
    }
    return value;
  });
  if (missing !== null) return { ok: false, reason: missing };
  return { ok: true, text: out, secretsUsed: [...used] };
}

/**
 * `text` with every secret value replaced by `<secret:NAME>`: what a reason, a log line or an event may show. Longer
 * values first, so that a secret containing another is replaced whole.
 */
export function redactSecretValues(text: string, secrets: ReadonlyMap<string, string>): string {
  if (secrets.size === 0) return text;
  let out = text;
  const byLength = [...secrets].filter(([, v]) => v.length > 0).sort((a, b) => b[1].length - a[1].length);
  for (const [name, value] of byLength) out = out.split(value).join(`<secret:${name}>`);
  return out;
}

/** Whether `host` (a URL's hostname, IPv6 in brackets or not) is one of `allowed` (exact, case-insensitive). */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const bare = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase().replace(/\.$/, '');
  return allowed.some((a) => a.toLowerCase().replace(/\.$/, '') === bare);
}
