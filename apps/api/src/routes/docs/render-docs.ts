/**
 * Renders the OpenAPI document into one self-contained HTML reference page: no script, no outside asset, one
 * inline stylesheet (allowed by its hash in the Content-Security-Policy). Every piece of text from the document is
 * HTML-escaped before the few markup rules below touch it.
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from '../public-pages/html.js';

interface Ref {
  $ref: string;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: unknown;
}
interface MediaType {
  schema?: unknown;
  examples?: Record<string, { summary?: string; value?: unknown }>;
}
interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<Parameter | Ref>;
  requestBody?: { description?: string; content?: Record<string, MediaType> };
  responses?: Record<string, Response | Ref>;
}
interface Doc {
  info?: { title?: string; version?: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths?: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, unknown>;
    parameters?: Record<string, Parameter>;
    responses?: Record<string, Response>;
    headers?: Record<string, { description?: string; schema?: unknown }>;
    securitySchemes?: Record<string, { description?: string }>;
  };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const STYLE = `
:root { color-scheme: light dark; --fg: #1d232b; --muted: #5b6573; --bg: #fff; --panel: #f5f7fa; --line: #dde2e8; --accent: #2458c6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e3e7ec; --muted: #9aa5b3; --bg: #14181d; --panel: #1d232b; --line: #2e3742; --accent: #8fb0ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
.layout { display: grid; grid-template-columns: 18rem minmax(0, 1fr); }
nav { position: sticky; top: 0; height: 100vh; overflow: auto; padding: 1.25rem; border-right: 1px solid var(--line); background: var(--panel); font-size: 14px; }
nav ul { list-style: none; margin: 0 0 1rem; padding: 0; }
nav li { margin: .2rem 0; }
nav h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .4rem; }
main { padding: 1.5rem 2.5rem 4rem; max-width: 70rem; min-width: 0; }
h1 { margin-top: 0; }
h2 { border-bottom: 1px solid var(--line); padding-bottom: .3rem; margin-top: 2.5rem; }
article { border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 1.25rem 0; }
article h3 { margin: 0 0 .5rem; font-size: 17px; display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
.method { font: 700 12px/1 ui-monospace, SFMono-Regular, Menlo, monospace; text-transform: uppercase; padding: .3rem .5rem; border-radius: 4px; color: #fff; background: #5b6573; }
.m-get { background: #2d7a46; } .m-post { background: #2458c6; } .m-patch { background: #a86400; } .m-delete { background: #b3261e; } .m-put { background: #6b3fb3; }
.path { font: 600 15px ui-monospace, SFMono-Regular, Menlo, monospace; }
.opid { color: var(--muted); font-size: 13px; font-weight: 400; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
code { background: var(--panel); padding: .05rem .3rem; border-radius: 3px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow: auto; max-height: 32rem; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; font-size: 14px; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: .4rem .5rem; }
th { color: var(--muted); font-weight: 600; }
table.fixed { table-layout: fixed; }
td { overflow-wrap: anywhere; }
.params th:nth-child(1) { width: 20%; } .params th:nth-child(2), .params th:nth-child(3) { width: 5.5rem; } .params th:nth-child(4) { width: 18%; }
.responses th:nth-child(1) { width: 5rem; }
.headers th:nth-child(1) { width: 22%; } .headers th:nth-child(2) { width: 22%; }
h4 { margin: 1rem 0 .3rem; font-size: 14px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
details summary { cursor: pointer; color: var(--accent); }
.muted { color: var(--muted); }
@media (max-width: 800px) { .layout { display: block; } nav { position: static; height: auto; border-right: 0; } main { padding: 1rem; } }
`;

/** sha256 of the stylesheet, for `style-src` in the Content-Security-Policy. */
export const DOCS_STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

/** Anchors are built from component names and operation ids; anything outside [A-Za-z0-9_-] is dropped. */
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '')}`;

/** Inline markdown on escaped text: `code`, **bold**. */
function inline(escaped: string): string {
  return escaped.replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

/** The small markdown subset the document's descriptions use: paragraphs, pipe tables, `code`, **bold**. */
export function markdown(text: string | undefined): string {
  if (!text) return '';
  const blocks = text.split(/\n\s*\n/);
  return blocks
    .map((block) => {
      const lines = block.split('\n').filter((l) => l.trim() !== '');
      if (lines.length >= 2 && lines.every((l) => l.trim().startsWith('|'))) {
        const cells = (l: string) =>
          l
            .trim()
            .replace(/^\||\|$/g, '')
            .split('|')
            .map((c) => inline(escapeHtml(c.trim())));
        const [head, , ...rows] = lines;
        return `<table><thead><tr>${cells(head!)
          .map((c) => `<th>${c}</th>`)
          .join('')}</tr></thead><tbody>${rows
          .map(
            (r) =>
              `<tr>${cells(r)
                .map((c) => `<td>${c}</td>`)
                .join('')}</tr>`,
          )
          .join('')}</tbody></table>`;
      }
      return `<p>${inline(escapeHtml(lines.join(' ')))}</p>`;
    })
    .join('\n');
}

/** Pretty JSON, escaped, with component references turned into links to their section. */
function json(value: unknown): string {
  const escaped = escapeHtml(JSON.stringify(value, null, 2));
  const linked = escaped.replace(
    /&quot;#\/components\/(schemas|responses|parameters|headers)\/([A-Za-z0-9_.-]+)&quot;/g,
    (_m, kind: string, name: string) => `&quot;<a href="#${anchor(kind, name)}">#/components/${kind}/${name}</a>&quot;`,
  );
  return `<pre><code>${linked}</code></pre>`;
}

const isRef = (v: unknown): v is Ref => typeof v === 'object' && v !== null && typeof (v as Ref).$ref === 'string';
const refName = (r: Ref) => r.$ref.split('/').pop() ?? '';

function schemaSummary(schema: unknown): string {
  if (isRef(schema)) return `<a href="#${anchor('schemas', refName(schema))}">${escapeHtml(refName(schema))}</a>`;
  if (typeof schema !== 'object' || schema === null) return '';
  const s = schema as Record<string, unknown>;
  const type = Array.isArray(s.type) ? s.type.join(' | ') : String(s.type ?? '');
  const facts: string[] = [];
  if (s.format) facts.push(`format ${s.format}`);
  if (Array.isArray(s.enum)) facts.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  // Zod's `int()` writes the safe-integer range as bounds: that is not a limit of the API, so it is not documented.
  const real = (n: unknown) => n !== undefined && Math.abs(Number(n)) !== Number.MAX_SAFE_INTEGER;
  if (real(s.minimum)) facts.push(`min ${s.minimum}`);
  if (real(s.maximum)) facts.push(`max ${s.maximum}`);
  if (s.minLength !== undefined) facts.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) facts.push(`max length ${s.maxLength}`);
  if (s.default !== undefined) facts.push(`default ${JSON.stringify(s.default)}`);
  return `<code>${escapeHtml(type)}</code>${facts.length ? ` <span class="muted">${escapeHtml(facts.join('; '))}</span>` : ''}`;
}

function parametersTable(doc: Doc, params: Array<Parameter | Ref>): string {
  const rows = params.map((p) => {
    const param = isRef(p) ? doc.components?.parameters?.[refName(p)] : p;
    if (!param) return '';
    return `<tr><td><code>${escapeHtml(param.name)}</code></td><td>${escapeHtml(param.in)}</td><td>${param.required ? 'yes' : 'no'}</td><td>${schemaSummary(
      param.schema,
    )}</td><td>${markdown(param.description)}</td></tr>`;
  });
  return `<h4>Parameters</h4><table class="fixed params"><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Schema</th><th>Description</th></tr></thead><tbody>${rows.join(
    '',
  )}</tbody></table>`;
}

/** A schema; a reference to a named schema is shown expanded one level, with a link to its section. */
function schemaHtml(doc: Doc, schema: unknown): string {
  if (isRef(schema) && schema.$ref.startsWith('#/components/schemas/')) {
    const name = refName(schema);
    return `<p>Schema: <a href="#${anchor('schemas', name)}">${escapeHtml(name)}</a></p>${json(doc.components?.schemas?.[name] ?? schema)}`;
  }
  return json(schema);
}

function mediaTypes(doc: Doc, content: Record<string, MediaType> | undefined): string {
  if (!content) return '';
  return Object.entries(content)
    .map(([type, media]) => {
      const examples = Object.entries(media.examples ?? {})
        .map(
          ([name, ex]) =>
            `<details><summary>Example: ${escapeHtml(ex.summary ?? name)}</summary>${json(ex.value)}</details>`,
        )
        .join('');
      return `<p class="muted"><code>${escapeHtml(type)}</code></p>${schemaHtml(doc, media.schema)}${examples}`;
    })
    .join('');
}

function headerNames(headers: Record<string, unknown> | undefined): string {
  const names = Object.keys(headers ?? {});
  return names.length
    ? `<p class="muted">Headers: ${names.map((n) => `<a href="#${anchor('header', n)}"><code>${escapeHtml(n)}</code></a>`).join(', ')}</p>`
    : '';
}

function responsesTable(doc: Doc, responses: Record<string, Response | Ref>): string {
  const rows = Object.entries(responses).map(([status, r]) => {
    if (isRef(r)) {
      const name = refName(r);
      return `<tr><td><code>${escapeHtml(status)}</code></td><td><a href="#${anchor('responses', name)}">${escapeHtml(name)}</a></td></tr>`;
    }
    return `<tr><td><code>${escapeHtml(status)}</code></td><td>${markdown(r.description)}${headerNames(r.headers)}${mediaTypes(doc, r.content)}</td></tr>`;
  });
  return `<h4>Responses</h4><table class="fixed responses"><thead><tr><th>Status</th><th>Response</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Response headers by their wire name (the components are keyed by an identifier, the responses by the name). */
function responseHeaders(doc: Doc): string {
  const byName = new Map<string, { description?: string; schema?: unknown }>();
  const collect = (headers: Record<string, unknown> | undefined) => {
    for (const [name, h] of Object.entries(headers ?? {})) {
      if (byName.has(name)) continue;
      const header = isRef(h)
        ? doc.components?.headers?.[refName(h)]
        : (h as { description?: string; schema?: unknown });
      if (header) byName.set(name, header);
    }
  };
  for (const r of Object.values(doc.components?.responses ?? {})) collect(r.headers);
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item))
      for (const r of Object.values(op.responses ?? {})) if (!isRef(r)) collect(r.headers);
  }
  return [...byName]
    .map(
      ([name, h]) =>
        `<tr id="${anchor('header', name)}"><td><code>${escapeHtml(name)}</code></td><td>${schemaSummary(h.schema)}</td><td>${markdown(h.description)}</td></tr>`,
    )
    .join('');
}

interface Op {
  method: string;
  path: string;
  op: Operation;
}

function operationsByTag(doc: Doc): Map<string, Op[]> {
  const byTag = new Map<string, Op[]>();
  for (const t of doc.tags ?? []) byTag.set(t.name, []);
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method, path, op });
    }
  }
  return byTag;
}

/** `where`: how the request is addressed (`GET /api/v1/monitors`, or for a webhook the receiver's URL). */
function operationHtml(doc: Doc, where: string, { method, path, op }: Op): string {
  const id = anchor('op', op.operationId ?? `${method}${path}`);
  const head = method === 'get' && doc.paths?.[path]?.head;
  return `<article id="${id}">
<h3><span class="method m-${method}">${method.toUpperCase()}</span><span class="path">${escapeHtml(path)}</span><span class="opid">${escapeHtml(
    op.operationId ?? '',
  )}</span></h3>
<p><strong>${escapeHtml(op.summary ?? '')}</strong> <span class="muted">· <code>${escapeHtml(where)}</code></span></p>
${markdown(op.description)}
${head ? '<p class="muted">Also answers HEAD: the same status and headers, no body.</p>' : ''}
${op.parameters?.length ? parametersTable(doc, op.parameters) : ''}
${op.requestBody ? `<h4>Request body</h4>${markdown(op.requestBody.description)}${mediaTypes(doc, op.requestBody.content)}` : ''}
${op.responses ? responsesTable(doc, op.responses) : ''}
</article>`;
}

/** The whole reference page. `specUrl` is where the JSON document is served. */
export function renderDocsHtml(document: object, specUrl: string): string {
  const doc = document as Doc;
  const title = doc.info?.title ?? 'API reference';
  const basePath = doc.servers?.[0]?.url.startsWith('/') ? doc.servers[0].url : '';
  const byTag = operationsByTag(doc);
  const webhooks: Op[] = Object.entries(doc.webhooks ?? {}).flatMap(([name, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path: name, op })),
  );
  const tagDescription = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  const schemas = Object.entries(doc.components?.schemas ?? {});
  const responses = Object.entries(doc.components?.responses ?? {});
  const security = Object.entries(doc.components?.securitySchemes ?? {});

  const nav = `<nav aria-label="Contents">
<p><strong>${escapeHtml(title)}</strong><br><span class="muted">v${escapeHtml(doc.info?.version ?? '')}</span></p>
<ul><li><a href="#overview">Overview</a></li><li><a href="#authentication">Authentication</a></li></ul>
${[...byTag]
  .map(
    ([tag, ops]) =>
      `<h2>${escapeHtml(tag)}</h2><ul>${ops
        .map(
          ({ method, path, op }) =>
            `<li><a href="#${anchor('op', op.operationId ?? `${method}${path}`)}">${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}</a></li>`,
        )
        .join('')}</ul>`,
  )
  .join('\n')}
${
  webhooks.length
    ? `<h2>Webhooks</h2><ul>${webhooks
        .map(
          ({ method, path, op }) =>
            `<li><a href="#${anchor('op', op.operationId ?? `${method}${path}`)}">${escapeHtml(path)}</a></li>`,
        )
        .join('')}</ul>`
    : ''
}
<h2>Reference</h2><ul><li><a href="#responses">Common responses</a></li><li><a href="#headers">Response headers</a></li><li><a href="#schemas">Schemas</a></li><li><a href="${escapeHtml(
    specUrl,
  )}">OpenAPI document (JSON)</a></li></ul>
</nav>`;

  const main = `<main>
<h1>${escapeHtml(title)}</h1>
<p class="muted">Version ${escapeHtml(doc.info?.version ?? '')} · Base path <code>${escapeHtml(basePath || '/')}</code> · <a href="${escapeHtml(
    specUrl,
  )}">OpenAPI 3.1 document</a></p>
<section id="overview"><h2>Overview</h2>${markdown(doc.info?.description)}</section>
<section id="authentication"><h2>Authentication</h2>${security.map(([, s]) => markdown(s.description)).join('')}</section>
${[...byTag]
  .map(
    ([tag, ops]) =>
      `<section id="${anchor('tag', tag)}"><h2>${escapeHtml(tag)}</h2>${markdown(tagDescription.get(tag))}${ops
        .map((o) => operationHtml(doc, `${o.method.toUpperCase()} ${basePath}${o.path}`, o))
        .join('\n')}</section>`,
  )
  .join('\n')}
${
  webhooks.length
    ? `<section id="webhooks"><h2>Webhooks</h2><p>What Statusvane sends to your URLs.</p>${webhooks
        .map((o) => operationHtml(doc, `${o.method.toUpperCase()} <your URL>`, o))
        .join('\n')}</section>`
    : ''
}
<section id="responses"><h2>Common responses</h2>${responses
    .map(
      ([name, r]) =>
        `<article id="${anchor('responses', name)}"><h3>${escapeHtml(name)}</h3>${markdown(r.description)}${headerNames(r.headers)}${mediaTypes(doc, r.content)}</article>`,
    )
    .join('\n')}</section>
<section id="headers"><h2>Response headers</h2><table class="fixed headers"><thead><tr><th>Header</th><th>Schema</th><th>Description</th></tr></thead><tbody>${responseHeaders(doc)}</tbody></table></section>
<section id="schemas"><h2>Schemas</h2>${schemas
    .map(
      ([name, schema]) =>
        `<article id="${anchor('schemas', name)}"><h3>${escapeHtml(name)}</h3>${json(schema)}</article>`,
    )
    .join('\n')}</section>
</main>`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} reference</title>
<style>${STYLE}</style>
</head>
<body>
<div class="layout">
${nav}
${main}
</div>
</body>
</html>
`;
}
