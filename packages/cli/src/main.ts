/**
 * statusvane: the command line of the Statusvane API, over the typed SDK. Settings come from the environment:
 * STATUSVANE_URL (the service root, such as http://localhost:3000), STATUSVANE_TOKEN, and optionally
 * STATUSVANE_WORKSPACE (for a personal token in several workspaces). Exit codes: 0 ok, 1 error, 2 changes pending
 * (`plan --detailed-exitcode`).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { Command, CommanderError, Option } from 'commander';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { createStatusvaneClient, type Schemas, type StatusvaneClient } from '@statusvane/sdk';
import { cell, progress, table, type Io } from './output.js';

/** A failure the CLI reports in one line (and the API's issues below it), exiting 1. */
class CliError extends Error {
  constructor(
    message: string,
    readonly issues: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

type ApiAnswer<T> = { data?: T; error?: unknown; response: Response };

/** The answer's data, or a CliError with the API's message and issues. */
function unwrap<T>(answer: ApiAnswer<T>, what: string): T {
  if (answer.data !== undefined && answer.response.ok) return answer.data;
  const envelope = answer.error as
    { error?: { message?: string; details?: { issues?: Array<{ path: string; message: string }> } } } | undefined;
  const message = envelope?.error?.message ?? answer.response.statusText;
  throw new CliError(`${what}: ${message} (HTTP ${answer.response.status})`, envelope?.error?.details?.issues ?? []);
}

function clientOf(io: Io): StatusvaneClient {
  const url = io.env.STATUSVANE_URL;
  const token = io.env.STATUSVANE_TOKEN;
  if (!url) throw new CliError('STATUSVANE_URL is not set (the service root, such as http://localhost:3000)');
  if (!token) throw new CliError('STATUSVANE_TOKEN is not set');
  try {
    new URL(url);
  } catch {
    throw new CliError(`STATUSVANE_URL is not a URL: ${url}`);
  }
  return createStatusvaneClient({ url, token, workspace: io.env.STATUSVANE_WORKSPACE || undefined, fetch: retrying });
}

/** Attempts of a request that carries an Idempotency-Key, when the connection fails before an answer. */
const IDEMPOTENT_ATTEMPTS = 3;

/**
 * fetch, with a request that carries an Idempotency-Key sent again (up to IDEMPOTENT_ATTEMPTS in all) when it fails
 * without an answer (a connection reset, an answer lost on the way back): the key makes the API replay the first
 * answer instead of acting twice. Anything else is sent once.
 */
const retrying: typeof fetch = async (input, init) => {
  const req = new Request(input, init);
  if (!req.headers.has('Idempotency-Key')) return fetch(req);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(req.clone());
    } catch (err) {
      if (attempt >= IDEMPOTENT_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
};

/**
 * `${NAME}` in any string of the document is the environment variable NAME (how a pipeline puts secrets in without
 * committing them); `$${NAME}` is a literal `${NAME}`. An unset variable is an error naming it.
 */
export function interpolate(doc: unknown, env: NodeJS.ProcessEnv): unknown {
  const missing = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name: string) => {
        if (match.startsWith('$$')) return match.slice(1);
        const value = env[name];
        if (value === undefined) missing.add(name);
        return value ?? '';
      });
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(doc);
  if (missing.size) throw new CliError(`the document uses unset environment variable(s): ${[...missing].join(', ')}`);
  return out;
}

/** A document file, JSON or YAML (by content: JSON is YAML), read as the object it stands for, `${NAME}`s filled in. */
async function readDocument(file: string, env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text, { schema: 'core', uniqueKeys: true, maxAliasCount: 100 });
  } catch (err) {
    throw new CliError(`${file} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new CliError(`${file} must hold a document object ({ version: 1, monitors: [...] ... })`);
  return interpolate(doc, env) as Record<string, unknown>;
}

type Plan = Schemas['ConfigPlan'];
const SYMBOL = { create: '+', update: '~', delete: '-', noop: '=' } as const;
const pending = (p: Plan) => p.summary.create + p.summary.update + p.summary.delete;

/** The plan as a reader wants it: one line per change (noop hidden), changed fields under updates. */
function renderPlan(plan: Plan, verb: 'plan' | 'apply'): string {
  const rows = plan.changes
    .filter((c) => c.action !== 'noop')
    .map((c) => [
      SYMBOL[c.action],
      c.resourceType,
      c.ref,
      c.action === 'update' ? Object.keys(c.fields ?? {}).join(', ') : (c.id ?? ''),
    ]);
  const lines: string[] = [];
  if (rows.length) lines.push(table(['', 'TYPE', 'REF', 'CHANGES'], rows).trimEnd());
  for (const c of plan.changes.filter((x) => x.action === 'update')) {
    for (const [field, { from, to }] of Object.entries(c.fields ?? {}))
      lines.push(`  ~ ${c.resourceType} ${c.ref}.${field}: ${cell(from)} -> ${cell(to)}`);
  }
  const { create, update, delete: del, noop } = plan.summary;
  lines.push(
    verb === 'apply'
      ? `Applied: ${create} created, ${update} updated, ${del} deleted, ${noop} unchanged.`
      : `Plan: ${create} to create, ${update} to update, ${del} to delete, ${noop} unchanged.`,
  );
  return lines.join('\n') + '\n';
}

/** `30m`, `2h`, `90s`, `1h30m`, or plain minutes. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 60_000;
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match || text === '') throw new CliError(`--for must be a duration such as 30m, 2h or 1h30m, got "${text}"`);
  const ms = (Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0)) * 1000;
  if (ms <= 0) throw new CliError('--for must be longer than zero');
  return ms;
}

/** Every page of a list operation (250 a page). */
async function all<T>(fetchPage: (page: number) => Promise<{ data: T[]; pagination: { totalPages: number } }>) {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const answer = await fetchPage(page);
    out.push(...answer.data);
    if (page >= answer.pagination.totalPages) return out;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A component by id or by exact name (case-insensitive); an ambiguous or unknown name is an error. */
async function componentId(api: StatusvaneClient, nameOrId: string): Promise<string> {
  if (UUID.test(nameOrId)) return nameOrId.toLowerCase();
  const components = await all((page) =>
    api.GET('/components', { params: { query: { page, perPage: 250 } } }).then((a) => unwrap(a, 'list components')),
  );
  const found = components.filter((c) => c.name.toLowerCase() === nameOrId.toLowerCase());
  if (found.length === 1) return found[0]!.id;
  if (found.length === 0) throw new CliError(`no component is named "${nameOrId}"`);
  throw new CliError(
    `${found.length} components are named "${nameOrId}": give its id (${found.map((c) => c.id).join(', ')})`,
  );
}

async function confirm(io: Io, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

function program(io: Io): { cli: Command; exitCode: () => number } {
  const out = (text: string): void => void io.stdout.write(text);
  const json = (value: unknown): void => out(`${JSON.stringify(value, null, 2)}\n`);
  let exitCode = 0;
  const cli = new Command('statusvane')
    .description('Statusvane from the command line: STATUSVANE_URL (service root) and STATUSVANE_TOKEN set the target.')
    .option('--json', 'print JSON instead of tables')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const asJson = () => cli.opts<{ json?: boolean }>().json === true;

  cli
    .command('plan')
    .description('show what applying a document (YAML or JSON) would change')
    .requiredOption('-f, --file <file>', 'the workspace document')
    .option('--detailed-exitcode', 'exit 2 when the plan has changes (0: none)')
    .action(async (opts: { file: string; detailedExitcode?: boolean }) => {
      const api = clientOf(io);
      const doc = await readDocument(opts.file, io.env);
      const plan = unwrap(await api.POST('/config/plan', { body: doc as Schemas['ConfigDocument'] }), 'plan').data;
      if (asJson()) json(plan);
      else out(renderPlan(plan, 'plan'));
      if (opts.detailedExitcode && pending(plan) > 0) exitCode = 2;
    });

  cli
    .command('apply')
    .description('apply a document: plan, confirm, then apply exactly that plan (409 if the workspace moved meanwhile)')
    .requiredOption('-f, --file <file>', 'the workspace document')
    .option('--yes', 'apply without asking')
    .action(async (opts: { file: string; yes?: boolean }) => {
      const api = clientOf(io);
      const doc = await readDocument(opts.file, io.env);
      const plan = unwrap(await api.POST('/config/plan', { body: doc as Schemas['ConfigDocument'] }), 'plan').data;
      if (pending(plan) === 0) {
        if (asJson()) json(plan);
        else out(renderPlan(plan, 'apply'));
        return;
      }
      if (!opts.yes) {
        if (!asJson()) out(renderPlan(plan, 'plan'));
        if (!io.stdin.isTTY) throw new CliError('not applying without --yes (no terminal to confirm on)');
        if (!(await confirm(io, `Apply ${pending(plan)} change(s)? [y/N] `))) throw new CliError('not applied');
      }
      const bar = progress(io, `applying ${pending(plan)} change(s)...`);
      let applied: Plan;
      try {
        const body = { ...doc, planId: plan.planId } as Schemas['ConfigApplyInput'];
        applied = unwrap(await api.POST('/config/apply', { body }), 'apply').data;
      } finally {
        bar.stop();
      }
      if (asJson()) json(applied);
      else out(renderPlan(applied, 'apply'));
    });

  cli
    .command('import')
    .description('import monitors from another format')
    .command('openapi <file>')
    .description(
      'one http monitor per GET operation of an OpenAPI 3.0 or 3.1 document (YAML or JSON): plan, or apply with --apply',
    )
    .requiredOption('--base-url <url>', "the API's base URL, prefixed to every path")
    .option('--name <name>', 'names the import (refs openapi.<name>.*); default: the file name')
    .option('--include <operation...>', 'only these operations (operationIds or "GET /path")')
    .option('--apply', 'apply the plan (admins and owners)')
    .action(async (file: string, opts: { baseUrl: string; name?: string; include?: string[]; apply?: boolean }) => {
      const api = clientOf(io);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
      }
      const name =
        opts.name ??
        (file.split(/[\\/]/).pop() ?? 'api')
          .replace(/\.(ya?ml|json)$/i, '')
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 40);
      const body = {
        name: name || 'api',
        document: text,
        baseUrl: opts.baseUrl,
        ...(opts.include ? { include: opts.include } : {}),
        apply: opts.apply === true,
      };
      const plan = unwrap(
        await api.POST('/monitors/import/openapi', {
          body,
          params: { header: { 'Idempotency-Key': randomUUID() } },
        }),
        'import',
      ).data;
      if (asJson()) return json(plan);
      out(renderPlan(plan, opts.apply ? 'apply' : 'plan'));
      for (const s of plan.skipped) out(`  skipped ${s.operation}: ${s.reason}\n`);
    });

  cli
    .command('export')
    .description("print the workspace's managed resources as a document (YAML; JSON with --json)")
    .action(async () => {
      const doc = unwrap(await clientOf(io).GET('/config'), 'export').data;
      if (asJson()) json(doc);
      else out(toYaml(doc, { lineWidth: 0 }));
    });

  const maintenance = cli.command('maintenance').description('maintenance windows around a deploy');
  maintenance
    .command('start')
    .description('open a window from now; prints its id')
    .requiredOption('--title <title>', "the notice's title")
    .option('--for <duration>', 'how long: 30m, 2h, 1h30m', '30m')
    .addOption(new Option('--component <name|id...>', 'a component it covers (repeatable)'))
    .option('--all', 'cover the whole workspace instead: no monitor opens an incident or pages while it runs')
    .action(async (opts: { title: string; for: string; component?: string[]; all?: boolean }) => {
      // The whole workspace only when asked by name: a CI step that lost its --component must not silence everything.
      if (!opts.component?.length && !opts.all)
        throw new CliError(
          'maintenance start needs --component <name|id> (repeatable), or --all for the whole workspace (every monitor)',
        );
      if (opts.component?.length && opts.all) throw new CliError('give --component or --all, not both');
      const api = clientOf(io);
      const ms = parseDuration(opts.for);
      const componentIds = [];
      for (const c of opts.component ?? []) componentIds.push(await componentId(api, c));
      const now = Date.now();
      const window = unwrap(
        await api.POST('/maintenance', {
          body: {
            title: opts.title,
            startsAt: new Date(now).toISOString(),
            endsAt: new Date(now + ms).toISOString(),
            ...(componentIds.length ? { componentIds } : {}),
          },
          // One key for this start: a retry of a lost answer (`retrying`) replays the window instead of opening a second.
          params: { header: { 'Idempotency-Key': randomUUID() } },
        }),
        'maintenance start',
      ).data;
      if (asJson()) json(window);
      else out(`${window.id}\n`);
    });
  maintenance
    .command('complete <id>')
    .description('end a window now (a no-op if it has already ended)')
    .action(async (id: string) => {
      const window = unwrap(
        await clientOf(io).PATCH('/maintenance/{id}', { params: { path: { id } }, body: { status: 'complete' } }),
        'maintenance complete',
      ).data;
      if (asJson()) json(window);
      else out(`completed ${window.id}\n`);
    });

  cli
    .command('monitors')
    .description('monitors')
    .command('ls')
    .description('list the workspace monitors')
    .action(async () => {
      const api = clientOf(io);
      const monitors = await all((page) =>
        api.GET('/monitors', { params: { query: { page, perPage: 250 } } }).then((a) => unwrap(a, 'monitors ls')),
      );
      if (asJson()) {
        json(monitors);
        return;
      }
      out(
        table(
          ['NAME', 'TYPE', 'STATUS', 'REF', 'TARGET', 'ID'],
          monitors.map((m) => [cell(m.name), m.type, m.status, cell(m.ref), cell(m.target), m.id]),
        ) || 'No monitors.\n',
      );
    });

  const incidents = cli.command('incidents').description('incidents');
  incidents
    .command('ls')
    .description('list open and recently resolved incidents')
    .action(async () => {
      const api = clientOf(io);
      const list = await all((page) =>
        api.GET('/incidents', { params: { query: { page, perPage: 250 } } }).then((a) => unwrap(a, 'incidents ls')),
      );
      if (asJson()) {
        json(list);
        return;
      }
      out(
        table(
          ['STATUS', 'IMPACT', 'STARTED', 'TITLE', 'ID'],
          list.map((i) => [i.status, i.impact, i.startedAt, cell(i.title), i.id]),
        ) || 'No incidents.\n',
      );
    });
  // Acknowledging through the CLI records its token's actor as `acknowledgedBy`, as any API call does.
  for (const [verb, path, what] of [
    ['ack', '/incidents/{id}/acknowledge', 'acknowledge an incident: its escalation stops'],
    ['resolve', '/incidents/{id}/resolve', 'resolve an incident'],
  ] as const) {
    incidents
      .command(`${verb} <id>`)
      .description(what)
      .action(async (id: string) => {
        const api = clientOf(io);
        const incident = unwrap(await api.POST(path, { params: { path: { id } } }), `incidents ${verb}`).data;
        if (asJson()) {
          json(incident);
          return;
        }
        const by = incident.acknowledgedBy ? ` by ${incident.acknowledgedBy.name}` : '';
        out(
          incident.status === 'resolved'
            ? `Resolved at ${incident.resolvedAt}: ${incident.title}\n`
            : `Acknowledged at ${incident.acknowledgedAt}${by}: ${incident.title}\n`,
        );
      });
  }

  cli
    .command('oncall')
    .description('who is on call now, in every schedule of the workspace')
    .action(async () => {
      const api = clientOf(io);
      const now = unwrap(await api.GET('/oncall'), 'oncall').data;
      if (asJson()) {
        json(now);
        return;
      }
      out(
        table(
          ['SCHEDULE', 'ON CALL', 'BY', 'UNTIL', 'SCHEDULE ID'],
          now.map((o) => [
            cell(o.schedule.name),
            o.user ? cell(o.user.name ?? o.user.email) : 'nobody (fallback is paged)',
            o.override ? 'override' : cell(o.layer?.name),
            o.to ?? '-',
            o.schedule.id,
          ]),
        ) || 'No schedules.\n',
      );
    });

  return { cli, exitCode: () => exitCode };
}

/** Runs one command line; resolves to the exit code (0 ok, 1 error, 2 changes pending). */
export async function main(argv: string[], io: Io): Promise<number> {
  const { cli, exitCode } = program(io);
  try {
    await cli.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    if (err instanceof CliError) {
      io.stderr.write(`statusvane: ${err.message}\n`);
      for (const issue of err.issues) io.stderr.write(`  ${issue.path || '(body)'}: ${issue.message}\n`);
      return 1;
    }
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    io.stderr.write(`statusvane: ${(err as Error).message}${cause ? ` (${cause})` : ''}\n`);
    return 1;
  }
}
