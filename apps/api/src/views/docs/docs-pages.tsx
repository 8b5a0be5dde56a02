import type { ComponentChildren } from 'preact';
import type { AssetUrls } from '../assets.js';
import { Shell } from '../document.js';
import { renderPage } from '../render.js';
import { anchor, Json, Markdown } from './docs-text.js';

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
/** The parts of an OpenAPI 3.1 document the reference shows. */
export interface Doc {
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

interface Op {
  method: string;
  path: string;
  op: Operation;
}

/** Where the pages live and what they link. */
export interface DocsLinks {
  base: string;
  specUrl: string;
  assets: AssetUrls;
}

const isRef = (v: unknown): v is Ref => typeof v === 'object' && v !== null && typeof (v as Ref).$ref === 'string';
const refName = (r: Ref) => r.$ref.split('/').pop() ?? '';
/** A tag's page: `/docs/status-pages`. */
export const tagSlug = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'other';
const opAnchor = ({ method, path, op }: Op) => anchor('op', op.operationId ?? `${method}${path}`);

export function operationsByTag(doc: Doc): Map<string, Op[]> {
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

const webhooksOf = (doc: Doc): Op[] =>
  Object.entries(doc.webhooks ?? {}).flatMap(([name, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path: name, op })),
  );

/** Zod's `int()` writes the safe-integer range as bounds: that is not a limit of the API, so it is not shown. */
const realBound = (n: unknown) => n !== undefined && Math.abs(Number(n)) !== Number.MAX_SAFE_INTEGER;

function SchemaSummary({ schema, links }: { schema: unknown; links: DocsLinks }) {
  if (isRef(schema))
    return <a href={`${links.base}/reference#${anchor('schemas', refName(schema))}`}>{refName(schema)}</a>;
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as Record<string, unknown>;
  const type = Array.isArray(s.type) ? s.type.join(' | ') : String(s.type ?? '');
  const facts: string[] = [];
  if (s.format) facts.push(`format ${s.format}`);
  if (Array.isArray(s.enum)) facts.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (realBound(s.minimum)) facts.push(`min ${s.minimum}`);
  if (realBound(s.maximum)) facts.push(`max ${s.maximum}`);
  if (s.minLength !== undefined) facts.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) facts.push(`max length ${s.maxLength}`);
  if (s.default !== undefined) facts.push(`default ${JSON.stringify(s.default)}`);
  return (
    <>
      <code>{type}</code>
      {facts.length > 0 && <span class="muted"> {facts.join('; ')}</span>}
    </>
  );
}

/** Parameters as a list of definitions: readable at any width (a five-column table is one letter wide on a phone). */
function Parameters({ doc, params, links }: { doc: Doc; params: Array<Parameter | Ref>; links: DocsLinks }) {
  return (
    <>
      <h4>Parameters</h4>
      <dl class="params">
        {params.map((p) => {
          const param = isRef(p) ? doc.components?.parameters?.[refName(p)] : p;
          if (!param) return null;
          return (
            <>
              <dt>
                <code>{param.name}</code> <span class="muted">in {param.in}</span>
                {param.required && <span class="req"> required</span>}
              </dt>
              <dd>
                <SchemaSummary schema={param.schema} links={links} />
                <Markdown text={param.description} />
              </dd>
            </>
          );
        })}
      </dl>
    </>
  );
}

function SchemaBlock({ doc, schema, links }: { doc: Doc; schema: unknown; links: DocsLinks }) {
  const refBase = `${links.base}/reference`;
  if (isRef(schema) && schema.$ref.startsWith('#/components/schemas/')) {
    const name = refName(schema);
    return (
      <details>
        <summary>Schema: {name}</summary>
        <p>
          <a href={`${refBase}#${anchor('schemas', name)}`}>{name} in the reference</a>
        </p>
        <Json value={doc.components?.schemas?.[name] ?? schema} refBase={refBase} />
      </details>
    );
  }
  return (
    <details>
      <summary>Schema</summary>
      <Json value={schema} refBase={refBase} />
    </details>
  );
}

function MediaTypes({ doc, content, links }: { doc: Doc; content?: Record<string, MediaType>; links: DocsLinks }) {
  if (!content) return null;
  return (
    <>
      {Object.entries(content).map(([type, media]) => (
        <>
          <p class="muted">
            <code>{type}</code>
          </p>
          <SchemaBlock doc={doc} schema={media.schema} links={links} />
          {Object.entries(media.examples ?? {}).map(([name, ex]) => (
            <details>
              <summary>Example: {ex.summary ?? name}</summary>
              <Json value={ex.value} refBase={`${links.base}/reference`} />
            </details>
          ))}
        </>
      ))}
    </>
  );
}

function HeaderNames({ headers, links }: { headers?: Record<string, unknown>; links: DocsLinks }) {
  const names = Object.keys(headers ?? {});
  if (!names.length) return null;
  return (
    <p class="muted">
      Headers:{' '}
      {names.map((n, i) => (
        <>
          {i > 0 && ', '}
          <a href={`${links.base}/reference#${anchor('header', n)}`}>
            <code>{n}</code>
          </a>
        </>
      ))}
    </p>
  );
}

function Responses({
  doc,
  responses,
  links,
}: {
  doc: Doc;
  responses: Record<string, Response | Ref>;
  links: DocsLinks;
}) {
  return (
    <>
      <h4>Responses</h4>
      <dl class="responses">
        {Object.entries(responses).map(([status, r]) => (
          <>
            <dt>
              <code>{status}</code>
            </dt>
            <dd>
              {isRef(r) ? (
                <a href={`${links.base}/reference#${anchor('responses', refName(r))}`}>{refName(r)}</a>
              ) : (
                <>
                  <Markdown text={r.description} />
                  <HeaderNames headers={r.headers} links={links} />
                  <MediaTypes doc={doc} content={r.content} links={links} />
                </>
              )}
            </dd>
          </>
        ))}
      </dl>
    </>
  );
}

/** One operation. `where`: how the request is addressed (`GET /api/v1/monitors`, or a webhook's receiver). */
function Operation({ doc, where, o, links }: { doc: Doc; where: string; o: Op; links: DocsLinks }) {
  const { method, path, op } = o;
  const head = method === 'get' && doc.paths?.[path]?.head;
  return (
    <article id={opAnchor(o)}>
      <h3>
        <span class={`method m-${method}`}>{method.toUpperCase()}</span>
        <span class="path">{path}</span>
        <span class="opid">{op.operationId ?? ''}</span>
      </h3>
      <p>
        <strong>{op.summary ?? ''}</strong>{' '}
        <span class="muted">
          · <code>{where}</code>
        </span>
      </p>
      <Markdown text={op.description} />
      {head && <p class="muted">Also answers HEAD: the same status and headers, no body.</p>}
      {op.parameters?.length ? <Parameters doc={doc} params={op.parameters} links={links} /> : null}
      {op.requestBody && (
        <>
          <h4>Request body</h4>
          <Markdown text={op.requestBody.description} />
          <MediaTypes doc={doc} content={op.requestBody.content} links={links} />
        </>
      )}
      {op.responses && <Responses doc={doc} responses={op.responses} links={links} />}
    </article>
  );
}

/** The contents: the tags (not every operation: the content comes first), collapsed on phones, and a filter. */
function Nav({ doc, links, current }: { doc: Doc; links: DocsLinks; current: string }) {
  const tags = [...operationsByTag(doc).keys()];
  const item = (href: string, id: string, label: string) => (
    <li>
      <a href={href} aria-current={id === current ? 'page' : undefined}>
        {label}
      </a>
    </li>
  );
  return (
    <nav aria-label="Contents">
      <details class="contents">
        <summary>Contents</summary>
        <ul>
          {item(links.base, 'overview', 'Overview')}
          {tags.map((t) => item(`${links.base}/${tagSlug(t)}`, `tag-${tagSlug(t)}`, t))}
          {webhooksOf(doc).length > 0 && item(`${links.base}/webhooks`, 'webhooks', 'Webhooks')}
          {item(`${links.base}/reference`, 'reference', 'Responses, headers, schemas')}
          <li>
            <a href={links.specUrl}>OpenAPI document (JSON)</a>
          </li>
        </ul>
      </details>
    </nav>
  );
}

function Filter({ links, q }: { links: DocsLinks; q?: string }) {
  return (
    <form class="filter" method="get" action={`${links.base}/search`} role="search">
      <label htmlFor="q">Find an operation</label>
      <div class="filter-row">
        <input id="q" name="q" type="search" value={q} placeholder="monitors, incident, POST …" maxLength={100} />
        <button type="submit">Find</button>
      </div>
    </form>
  );
}

function DocsPage(props: {
  doc: Doc;
  links: DocsLinks;
  title: string;
  current: string;
  children: ComponentChildren;
  q?: string;
}) {
  const name = props.doc.info?.title ?? 'API reference';
  return (
    <Shell
      title={props.title === name ? `${name} reference` : `${props.title} · ${name} reference`}
      icon={props.links.assets.icon}
      stylesheet={props.links.assets.docsCss}
    >
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <div class="layout">
        <header class="side">
          <p class="brand">
            <a href={props.links.base}>{name}</a> <span class="muted">v{props.doc.info?.version ?? ''}</span>
          </p>
          <Filter links={props.links} q={props.q} />
          <Nav doc={props.doc} links={props.links} current={props.current} />
        </header>
        <main id="main" tabIndex={-1}>
          {props.children}
        </main>
      </div>
    </Shell>
  );
}

const basePathOf = (doc: Doc) => (doc.servers?.[0]?.url.startsWith('/') ? doc.servers[0].url : '');

/** `/docs`: the overview, authentication and the list of tags; the first view a reader downloads. */
export function renderDocsIndex(doc: Doc, links: DocsLinks): string {
  const title = doc.info?.title ?? 'API reference';
  const byTag = operationsByTag(doc);
  const tagDescription = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  return renderPage(
    <DocsPage doc={doc} links={links} title={title} current="overview">
      <h1>{title}</h1>
      <p class="muted">
        Version {doc.info?.version ?? ''} · Base path <code>{basePathOf(doc) || '/'}</code> ·{' '}
        <a href={links.specUrl}>OpenAPI 3.1 document</a>
      </p>
      <section aria-labelledby="overview">
        <h2 id="overview">Overview</h2>
        <Markdown text={doc.info?.description} />
      </section>
      <section aria-labelledby="authentication">
        <h2 id="authentication">Authentication</h2>
        {Object.values(doc.components?.securitySchemes ?? {}).map((s) => (
          <Markdown text={s.description} />
        ))}
      </section>
      <section aria-labelledby="resources">
        <h2 id="resources">Resources</h2>
        <ul class="tags">
          {[...byTag].map(([tag, ops]) => (
            <li>
              <a href={`${links.base}/${tagSlug(tag)}`}>{tag}</a>{' '}
              <span class="muted">
                {ops.length} operation{ops.length === 1 ? '' : 's'}
              </span>
              <Markdown text={tagDescription.get(tag)} />
            </li>
          ))}
        </ul>
      </section>
    </DocsPage>,
  );
}

/** `/docs/<tag>`: one tag's operations. null for a tag the document does not have. */
export function renderDocsTag(doc: Doc, links: DocsLinks, slug: string): string | null {
  const entry = [...operationsByTag(doc)].find(([tag]) => tagSlug(tag) === slug);
  if (!entry) return null;
  const [tag, ops] = entry;
  const basePath = basePathOf(doc);
  const description = (doc.tags ?? []).find((t) => t.name === tag)?.description;
  return renderPage(
    <DocsPage doc={doc} links={links} title={tag} current={`tag-${slug}`}>
      <h1>{tag}</h1>
      <Markdown text={description} />
      <ul class="ops">
        {ops.map((o) => (
          <li>
            <a href={`#${opAnchor(o)}`}>
              <code>
                {o.method.toUpperCase()} {o.path}
              </code>
            </a>{' '}
            <span class="muted">{o.op.summary}</span>
          </li>
        ))}
      </ul>
      {ops.map((o) => (
        <Operation doc={doc} where={`${o.method.toUpperCase()} ${basePath}${o.path}`} o={o} links={links} />
      ))}
    </DocsPage>,
  );
}

/** `/docs/webhooks`: what Statusvane sends to your URLs. */
export function renderDocsWebhooks(doc: Doc, links: DocsLinks): string {
  return renderPage(
    <DocsPage doc={doc} links={links} title="Webhooks" current="webhooks">
      <h1>Webhooks</h1>
      <p>What Statusvane sends to your URLs.</p>
      {webhooksOf(doc).map((o) => (
        <Operation doc={doc} where={`${o.method.toUpperCase()} <your URL>`} o={o} links={links} />
      ))}
    </DocsPage>,
  );
}

/** Response headers by their wire name (the components are keyed by an identifier, the responses by the name). */
function responseHeaders(doc: Doc): Array<[string, { description?: string; schema?: unknown }]> {
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
  for (const item of Object.values(doc.paths ?? {}))
    for (const op of Object.values(item))
      for (const r of Object.values(op.responses ?? {})) if (!isRef(r)) collect(r.headers);
  return [...byName];
}

/** `/docs/reference`: the common responses, the response headers and every schema. */
export function renderDocsReference(doc: Doc, links: DocsLinks): string {
  const refBase = `${links.base}/reference`;
  return renderPage(
    <DocsPage doc={doc} links={links} title="Reference" current="reference">
      <h1>Responses, headers and schemas</h1>
      <section aria-labelledby="responses">
        <h2 id="responses">Common responses</h2>
        {Object.entries(doc.components?.responses ?? {}).map(([name, r]) => (
          <article id={anchor('responses', name)}>
            <h3>{name}</h3>
            <Markdown text={r.description} />
            <HeaderNames headers={r.headers} links={links} />
            <MediaTypes doc={doc} content={r.content} links={links} />
          </article>
        ))}
      </section>
      <section aria-labelledby="headers">
        <h2 id="headers">Response headers</h2>
        <dl class="params">
          {responseHeaders(doc).map(([name, h]) => (
            <>
              <dt id={anchor('header', name)}>
                <code>{name}</code>
              </dt>
              <dd>
                <SchemaSummary schema={h.schema} links={links} />
                <Markdown text={h.description} />
              </dd>
            </>
          ))}
        </dl>
      </section>
      <section aria-labelledby="schemas">
        <h2 id="schemas">Schemas</h2>
        {Object.entries(doc.components?.schemas ?? {}).map(([name, schema]) => (
          <article id={anchor('schemas', name)}>
            <h3>{name}</h3>
            <Json value={schema} refBase={refBase} />
          </article>
        ))}
      </section>
    </DocsPage>,
  );
}

/** `/docs/search?q=`: the operations whose method, path, id, summary or tag contain every word, linked to their page. */
export function renderDocsSearch(doc: Doc, links: DocsLinks, q: string): string {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = [...operationsByTag(doc)].flatMap(([tag, ops]) =>
    ops
      .filter((o) => {
        const text = `${o.method} ${o.path} ${o.op.operationId ?? ''} ${o.op.summary ?? ''} ${tag}`.toLowerCase();
        return words.every((w) => text.includes(w));
      })
      .map((o) => ({ tag, o })),
  );
  return renderPage(
    <DocsPage doc={doc} links={links} title="Find an operation" current="search" q={q}>
      <h1>Find an operation</h1>
      <p role="status">
        {words.length === 0
          ? 'Type a word of a path, an operation or a resource.'
          : `${hits.length} operation${hits.length === 1 ? '' : 's'} match “${q}”.`}
      </p>
      {hits.length > 0 && (
        <ul class="ops">
          {hits.map(({ tag, o }) => (
            <li>
              <a href={`${links.base}/${tagSlug(tag)}#${opAnchor(o)}`}>
                <code>
                  {o.method.toUpperCase()} {o.path}
                </code>
              </a>{' '}
              <span class="muted">
                {o.op.summary} · {tag}
              </span>
            </li>
          ))}
        </ul>
      )}
    </DocsPage>,
  );
}
