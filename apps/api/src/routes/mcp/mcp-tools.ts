import { AppError } from '@statusvane/shared';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import type { RequestContext } from '../../services/auth/context.js';
import { API_ROUTES } from '../api-routes.js';
import { successOf, type ApiRoute } from '../define-route.js';
import { operationInput } from '../mount-routes.js';

/**
 * One MCP tool (beyond-the-seed §11): the REST operation it runs, by operationId, so that it takes the operation's
 * fields (path parameters, query, body; plus `workspace`), is judged by the same schemas, checks, roles and scope,
 * runs the same handler (the same service verb, audited the same way) and answers the same body. `body` fixes the
 * body of an operation the tool narrows (start_maintenance: `PATCH /maintenance/{id}` with `status: start`).
 */
interface ToolDef {
  name: string;
  title: string;
  description: string;
  operationId: string;
  body?: Record<string, unknown>;
  /** Other operations whose answers are added under these keys, called with the tool's `id` (get_monitor). */
  with?: Record<string, { operationId: string; query?: Record<string, string> }>;
}

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'list_monitors',
    title: 'List monitors',
    description: 'A page of monitors with their status, filtered and sorted as GET /api/v1/monitors.',
    operationId: 'listMonitors',
  },
  {
    name: 'get_monitor',
    title: 'Get a monitor',
    description: 'One monitor (`data`), its latest check results (`recentResults`) and its uptime (`uptime`).',
    operationId: 'getMonitor',
    with: {
      recentResults: { operationId: 'listMonitorResults', query: { perPage: '10' } },
      uptime: { operationId: 'getMonitorUptime' },
    },
  },
  {
    name: 'list_incidents',
    title: 'List incidents',
    description: 'A page of incidents, open ones first, filtered as GET /api/v1/incidents.',
    operationId: 'listIncidents',
  },
  {
    name: 'get_incident',
    title: 'Get an incident',
    description: 'One incident with its timeline, as GET /api/v1/incidents/{id}.',
    operationId: 'getIncident',
  },
  {
    name: 'uptime_report',
    title: 'Uptime report',
    description: 'Uptime of every monitor over a period, as GET /api/v1/reports/uptime.',
    operationId: 'getUptimeReport',
  },
  {
    name: 'acknowledge_incident',
    title: 'Acknowledge an incident',
    description: 'Acknowledges an open incident (stops its escalation). Needs the write scope.',
    operationId: 'acknowledgeIncident',
  },
  {
    name: 'resolve_incident',
    title: 'Resolve an incident',
    description: 'Resolves an incident. Needs the write scope.',
    operationId: 'resolveIncident',
  },
  {
    name: 'post_incident_update',
    title: 'Post an incident update',
    description: 'Posts an update (status and message) to an incident. Needs the write scope.',
    operationId: 'createIncidentUpdate',
  },
  {
    name: 'start_maintenance',
    title: 'Start a maintenance window',
    description: 'Starts a scheduled maintenance window now. Needs the write scope.',
    operationId: 'updateMaintenanceWindow',
    body: { status: 'start' },
  },
  {
    name: 'complete_maintenance',
    title: 'Complete a maintenance window',
    description: 'Ends a maintenance window in progress now. Needs the write scope.',
    operationId: 'updateMaintenanceWindow',
    body: { status: 'complete' },
  },
];

function routeOf(operationId: string): ApiRoute {
  const route = API_ROUTES.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`MCP tool: no operation ${operationId}`);
  return route;
}

const pathParamsOf = (route: ApiRoute) => [...route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);

type JsonSchema = { type: 'object'; properties: Record<string, object>; required: string[] };

/** The properties and required names of a Zod object schema as JSON Schema (the input side: what a caller sends). */
function jsonProperties(schema: z.ZodType | undefined): { properties: Record<string, object>; required: string[] } {
  if (!schema) return { properties: {}, required: [] };
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  // Query values are strings in a URL; a tool takes them as JSON, so numbers need no digits pattern.
  const properties = Object.fromEntries(
    Object.entries(json.properties ?? {}).map(([k, v]) => {
      const { pattern: _pattern, ...rest } = v;
      return [k, v.type === 'integer' ? rest : v];
    }),
  );
  return { properties, required: json.required ?? [] };
}

/** A tool's input schema: `workspace`, the operation's path parameters, its query and (unless fixed) its body. */
export function toolInputSchema(tool: ToolDef): JsonSchema {
  const route = routeOf(tool.operationId);
  const query = jsonProperties(route.request?.query);
  const body = tool.body ? { properties: {}, required: [] } : jsonProperties(route.request?.body?.schema);
  const params = pathParamsOf(route);
  return {
    type: 'object',
    properties: {
      workspace: {
        type: 'string',
        description: 'The workspace (slug or id) among those granted; default: the primary one.',
      },
      ...Object.fromEntries(params.map((p) => [p, { type: 'string', format: 'uuid' }])),
      ...query.properties,
      ...body.properties,
    },
    required: [...params, ...query.required, ...body.required],
  };
}

/** Whether a tool changes anything (its operation is not a GET): it needs the `write` scope. */
export const isWriteTool = (tool: ToolDef): boolean => routeOf(tool.operationId).method !== 'get';

/** A query value as a URL would carry it: strings as they are, lists comma-separated, the rest as text. */
const asQueryValue = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(String).join(',') : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;

/** Runs one operation for the tool's caller and answers its REST body (`{ data }`, or a page's `{ data, pagination }`). */
async function run(
  deps: ApiDeps,
  route: ApiRoute,
  ctx: RequestContext,
  raw: { params: Record<string, string>; query: Record<string, unknown>; body: unknown },
): Promise<Record<string, unknown>> {
  const input = await operationInput(deps, route, ctx, raw, { now: (deps.clock ?? (() => new Date()))() });
  const result = await route.handler(deps, input);
  return successOf(route).data ? { data: result } : (result as Record<string, unknown>);
}

/**
 * Calls a tool with its arguments for `ctx` (the caller in the workspace the arguments name): the operation's path
 * parameters out of the arguments, the rest as its query (a GET) or its body.
 */
export async function callTool(
  deps: ApiDeps,
  tool: ToolDef,
  ctx: RequestContext,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const route = routeOf(tool.operationId);
  const { workspace: _workspace, ...rest } = args;
  const params: Record<string, string> = {};
  for (const p of pathParamsOf(route)) {
    const v = rest[p];
    if (typeof v !== 'string') throw new AppError('invalid_request', `${p} is required`);
    params[p] = v;
    delete rest[p];
  }
  const isGet = route.method === 'get';
  const query = isGet ? Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, asQueryValue(v)])) : {};
  const body = isGet
    ? undefined
    : (tool.body ?? (route.request?.body ? rest : Object.keys(rest).length ? rest : undefined));
  const answer = await run(deps, route, ctx, { params, query, body });
  for (const [key, also] of Object.entries(tool.with ?? {})) {
    const extra = await run(deps, routeOf(also.operationId), ctx, { params, query: also.query ?? {}, body: undefined });
    answer[key] = extra.data;
  }
  return answer;
}
