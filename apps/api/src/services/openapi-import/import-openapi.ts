import got from 'got';
import { parse as parseYaml } from 'yaml';
import { ValidationError, type SsrfGuard } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { applyDocument } from '../config/config-writer.js';
import type { ConfigDeps } from '../config/config-deps.js';
import { fail, readConfigDocument } from '../config/config-document.js';
import type { ConfigDocumentInput } from '../config/config-schema.js';
import { computePlan, documentHash } from '../config/config-state.js';
import type { ConfigPlanRecord } from '../config/plan-config.js';
import { IMPORT_LIMITS, type ImportOpenApiInput } from './import-input.js';
import { OpenApiDocumentError, openApiMonitors } from './openapi-monitors.js';

/** What an import answers: a plan in section 6's shape, and the GET operations it left out with why. */
export interface ImportPlanRecord extends ConfigPlanRecord {
  skipped: Array<{ operation: string; reason: string }>;
}

/**
 * POST /monitors/import/openapi (writers; `apply: true` managers): one http monitor per GET operation of the document
 * that needs no parameter without an example (openapi-monitors.ts), planned as a config document whose refs are
 * `openapi.<name>.*` and which prunes only those: importing the same `name` again shows only what changed. With
 * `apply`, applied as POST /config/apply applies a document (one transaction, audit and events, first checks).
 */
export async function importOpenApi(
  deps: ConfigDeps,
  { ctx, input }: { ctx: ServiceContext; input: ImportOpenApiInput },
): Promise<ImportPlanRecord> {
  assertCan(ctx.role, input.apply ? 'config:apply' : 'monitors:write');
  const raw = input.documentUrl !== undefined ? await fetchDocument(deps.guard, input.documentUrl) : input.document!;
  const at = input.documentUrl !== undefined ? 'documentUrl' : 'document';
  let result;
  try {
    result = openApiMonitors(typeof raw === 'string' ? parseDocumentText(raw) : raw, input);
  } catch (err) {
    if (!(err instanceof OpenApiDocumentError)) throw err;
    fail([{ path: at, message: err.message }]);
  }
  const missing = (input.include ?? []).filter(
    (k) => !result.operations.some((o) => o.key === k || `GET ${o.path}` === k),
  );
  if (missing.length)
    fail(missing.map((k) => ({ path: 'include', message: `${k} is no GET operation of the document` })));
  const monitors = result.operations.flatMap((o) => (o.monitor ? [o.monitor] : []));
  const body = { version: 1, prune: true, monitors } as unknown as ConfigDocumentInput;
  const doc = {
    ...(await readConfigDocument(body, deps.config.checkRegions)),
    pruneRefPrefix: `openapi.${input.name}.`,
  };
  const hash = documentHash({ import: input.name, monitors });
  const skipped = result.operations.flatMap((o) => (o.skipped ? [{ operation: o.key, reason: o.skipped }] : []));
  const answer = (plan: ConfigPlanRecord): ImportPlanRecord => ({
    planId: plan.planId,
    changes: plan.changes,
    summary: plan.summary,
    skipped,
  });
  // With an Idempotency-Key, the answer is stored in the transaction that applies the plan (or, for a plan, alone).
  if (input.apply)
    return answer(
      await applyDocument(deps, ctx, doc, hash, undefined, (tx, applied) =>
        Promise.resolve(ctx.inTransaction?.(tx, answer(applied))),
      ),
    );
  const record = answer(await computePlan(deps.prisma, deps, ctx.workspace.id, doc, hash));
  if (ctx.inTransaction) await deps.prisma.$transaction((tx) => ctx.inTransaction!(tx, record));
  return record;
}

/** YAML 1.2 (JSON is YAML), read as the JSON-shaped value it stands for; anything else is a 400 at `document`. */
function parseDocumentText(text: string): unknown {
  try {
    return parseYaml(text, { schema: 'core', uniqueKeys: false, maxAliasCount: 1000, prettyErrors: false });
  } catch (err) {
    return fail([{ path: 'document', message: `is not JSON or YAML: ${(err as Error).message.split('\n')[0]}` }]);
  }
}

/**
 * `documentUrl`'s text: the SSRF guard judges the URL and every address it dials (no redirects: a redirect could
 * leave what was judged), at most 5 MiB and 15 s. Any failure is a 400 at `documentUrl` saying why.
 */
async function fetchDocument(guard: SsrfGuard, url: string): Promise<unknown> {
  const refuse = (message: string): never => fail([{ path: 'documentUrl', message }]);
  const checked = await guard.checkUrl(url);
  if (!checked.ok) refuse(checked.code === 'blocked' ? `is not allowed: ${checked.reason}` : checked.reason);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const stream = got.stream(url, {
      dnsLookup: guard.lookup,
      followRedirect: false,
      timeout: { request: 15_000 },
      retry: { limit: 0 },
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.1' },
    });
    let status = 0;
    stream.on('response', (r: { statusCode: number }) => (status = r.statusCode));
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > IMPORT_LIMITS.documentMaxBytes) {
        stream.destroy();
        refuse(`the document is larger than ${IMPORT_LIMITS.documentMaxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    if (status < 200 || status >= 300) refuse(`answered ${status}`);
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    if ((err as { code?: string }).code === 'ESSRF') refuse('is not allowed: it resolves to a refused address');
    const status = (err as { response?: { statusCode?: number } }).response?.statusCode;
    if (status !== undefined) refuse(`answered ${status}`);
    refuse(`could not be fetched: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}
