import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '@statusvane/shared';
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import type { ApiDeps } from '../../deps.js';
import { rateLimit } from '../../middleware/rate-limit.js';
import { ROUTE_LABEL } from '../../middleware/request-log.js';
import { authenticate, authenticateUser } from '../../services/auth/authenticate.js';
import { assertWriteScope, BearerError } from '../../services/auth/bearer-error.js';
import { PROTECTED_RESOURCE_METADATA_PATH } from '../oauth/oauth.router.js';
import { callTool, isWriteTool, toolInputSchema, TOOLS } from './mcp-tools.js';

export const MCP_PATH = '/mcp';

/** A JSON-RPC error answered before the MCP transport (no request id is known yet). */
function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A refusal of a tool call, as the tool's result (the model reads it): the API's error envelope. */
function toolError(err: AppError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(err.toEnvelope()) }] };
}

/**
 * The MCP SDK is loaded by the first MCP request, not with the API: it is a fifth of what the API loads (about 0.4 s
 * of CPU, most of it the protocol's schemas), paid at every start by an API that may never serve MCP, and by every
 * test file that builds the app.
 */
const importSdk = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
let sdk: ReturnType<typeof importSdk> | undefined;
const loadSdk = () => (sdk ??= importSdk());

/**
 * The MCP server (beyond-the-seed §11) at `/mcp`: Streamable HTTP on the official SDK in stateless mode (a new server
 * and transport per request, nothing kept between requests, so any API replica answers any request), JSON answers.
 * Only an `mcp_at_` token issued for this resource opens it; without one, 401 pointing to the protected resource
 * metadata, which leads a client to the authorization server. A browser page of another origin is refused (DNS
 * rebinding). Each tool call authenticates again in the workspace its arguments name, then runs its REST operation.
 */
export function mcpRouter(deps: ApiDeps): Router {
  const router = Router();
  const ownOrigin = new URL(deps.config.publicBaseUrl).origin;
  const metadataUrl = `${deps.config.publicBaseUrl}${PROTECTED_RESOURCE_METADATA_PATH.mcp}`;

  const gate: RequestHandler = async (req, res, next) => {
    res.locals[ROUTE_LABEL] = MCP_PATH;
    const origin = req.get('origin');
    if (origin !== undefined && origin !== ownOrigin)
      return rpcError(res, 403, -32000, 'Requests from another origin are refused');
    if (req.method !== 'POST') {
      // Stateless: no stream to open (GET) and no session to end (DELETE).
      res.setHeader('Allow', 'POST');
      return rpcError(res, 405, -32000, 'This server is stateless: send JSON-RPC requests with POST');
    }
    try {
      res.locals.userCtx = await authenticateUser(deps, { authorization: req.get('authorization'), resource: 'mcp' });
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'unauthorized' && err.code !== 'forbidden')) throw err;
      const given = req.get('authorization') !== undefined;
      const error = err instanceof BearerError || given ? ', error="invalid_token"' : '';
      res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${metadataUrl}"${error}`);
      return rpcError(res, 401, -32001, err.message);
    }
    next();
  };

  const handle: RequestHandler = async (req, res) => {
    const [{ Server }, { StreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] =
      await loadSdk();
    const authorization = req.get('authorization');
    const server = new Server(
      { name: 'statusvane', title: 'Statusvane', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: TOOLS.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: toolInputSchema(t),
        annotations: { readOnlyHint: !isWriteTool(t) },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const tool = TOOLS.find((t) => t.name === request.params.name);
      if (!tool) return toolError(new AppError('not_found', `No tool ${request.params.name}`));
      const args = request.params.arguments ?? {};
      try {
        const workspace = args.workspace;
        const ctx = await authenticate(deps, {
          authorization,
          workspaceHeader: typeof workspace === 'string' ? workspace : undefined,
          resource: 'mcp',
        });
        if (isWriteTool(tool)) assertWriteScope(ctx.scope);
        const answer = await callTool(deps, tool, ctx, { ...args });
        return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
      } catch (err) {
        if (err instanceof AppError && err.httpStatus < 500) return toolError(err);
        deps.logger.error('mcp tool failed', {
          tool: tool.name,
          requestId: res.locals.requestId,
          error: err instanceof Error ? err.message : String(err),
        });
        return toolError(new AppError('internal', 'Something went wrong on our side; the request id identifies it'));
      }
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  const badBody: ErrorRequestHandler = (err: unknown, _req, res, next) => {
    const type = (err as { type?: string } | null)?.type;
    if (type === 'entity.parse.failed') return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    if (type?.startsWith('entity.')) return rpcError(res, 413, -32600, 'The request body is too large or unreadable');
    next(err);
  };

  router.all(
    MCP_PATH,
    gate,
    rateLimit(deps.redis, deps.config.rateLimitPerMinute),
    express.json({ limit: '256kb' }),
    handle,
    badBody,
  );
  return router;
}
