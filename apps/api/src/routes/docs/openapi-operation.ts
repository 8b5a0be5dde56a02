/**
 * The parts of the OpenAPI document every operation shares (headers, error responses, parameters), and
 * operationOf, which turns one route declaration (routes/define-route.ts) into its path item: the document is
 * derived from the same declaration that mountRoutes serves.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { paginationSchema } from '../../schemas/envelopes.js';
import { z } from '../../schemas/zod.js';
import { successOf, successStatus, takesIfMatch, type ApiRoute, type Roles } from '../define-route.js';

/** The sentence each description ends with, from the entry's `roles`. */
const ROLE_NOTE: Record<Roles, string> = {
  read: 'Any role (viewer and above).',
  'monitors:write': 'Role: member, admin or owner (a viewer gets 403).',
  'monitors:delete': 'Role: admin or owner (others get 403).',
  'components:write': 'Role: member, admin or owner (a viewer gets 403).',
  'incidents:respond': 'Role: member, admin or owner (a viewer gets 403).',
  'statusPages:manage': 'Role: admin or owner, the roles that can manage status pages (others get 403).',
  'incidents:delete': 'Role: admin or owner (others get 403).',
  'escalationPolicies:manage': 'Role: admin or owner (others get 403).',
  'tokens:manage': 'Role: admin or owner (others get 403).',
  'members:manage': 'Role: admin or owner (others get 403).',
  'config:apply': 'Role: admin or owner (others get 403).',
  'audit:read': 'Role: admin or owner (others get 403).',
  'webhooks:manage': 'Role: admin or owner (others get 403).',
  'schedules:manage': 'Role: admin or owner (others get 403).',
  'schedules:override': 'Role: member, admin or owner (a viewer gets 403); a member only for themselves.',
  self: 'Your own, the same in every workspace: a personal token (an org token gets 403); an OAuth token may only read.',
  'wallTokens:manage': 'Role: admin or owner (others get 403).',
  'secrets:manage': 'Role: admin or owner (others get 403).',
  'reports:manage': 'Role: admin or owner (others get 403).',
};

// ---------------------------------------------------------------------------------------------------------------
// Shared components: responses, headers, parameters
// ---------------------------------------------------------------------------------------------------------------

export const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

type HeaderComponent = {
  description: string;
  schema: { type: 'string' | 'integer'; maxLength?: number; minimum?: number; enum?: string[] };
};

export const HEADERS: Record<string, HeaderComponent> = {
  RequestId: {
    description:
      'Identifies the request in the logs. Echoed when the client sent a safe value (up to 128 characters of `A-Za-z0-9._:-`).',
    schema: { type: 'string', maxLength: 128 },
  },
  RateLimitLimit: {
    description: 'Requests allowed per minute for this token.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  WwwAuthenticate: { description: 'Always `Bearer`.', schema: { type: 'string', enum: ['Bearer'] } },
  ETag: {
    description:
      'The version of the record answered, as a strong entity tag (`"3"`): send it back in `If-Match` to change or delete ' +
      'the record only if nobody changed it since.',
    schema: { type: 'string' },
  },
  Allow: {
    description: 'The methods the path takes (GET paths also HEAD), comma-separated.',
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description:
      'Present (`true`) when this is the stored response of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const requestIdHeader = { 'X-Request-Id': ref('headers', 'RequestId') };
const rateLimitHeaders = {
  'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'RateLimit-Reset': ref('headers', 'RateLimitReset'),
};
export const successHeaders = { ...requestIdHeader, ...rateLimitHeaders };

export const errorExample = (code: string, message: string, details?: Record<string, unknown>) => ({
  error: { code, message, ...(details ? { details } : {}) },
});

export const ERROR_RESPONSES = {
  BadRequest: {
    description:
      '`invalid_request`: malformed JSON, a wrong content type, unknown fields, wrong types or out-of-range values (`details.issues` ' +
      'names each offending field); or a personal token that belongs to several workspaces sent without `X-Statusvane-Workspace` ' +
      '(`details.workspaces` lists the choices).',
    headers: successHeaders,
    example: errorExample('invalid_request', 'Invalid request: intervalSeconds', {
      issues: [{ path: 'intervalSeconds', message: 'Too small: expected number to be >=60' }],
    }),
  },
  Unauthorized: {
    description: '`unauthorized`: the bearer token is missing, malformed, unknown, revoked or expired.',
    headers: { ...requestIdHeader, 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') },
    example: errorExample('unauthorized', 'The token is invalid, expired or revoked'),
  },
  Forbidden: {
    description:
      "`forbidden`: the token's role may not perform the operation, or `X-Statusvane-Workspace` names a workspace the token " +
      'cannot act in.',
    headers: requestIdHeader,
    example: errorExample('forbidden', 'The viewer role may not perform this operation'),
  },
  NotFound: {
    description:
      '`not_found`: no such record in this workspace (an id that is not a uuid, or that belongs to another workspace, is also 404).',
    headers: successHeaders,
    example: errorExample('not_found', 'monitor 1f0c7a52-3d3c-4c55-9d87-5d2f2b0a8e11 was not found'),
  },
  MethodNotAllowed: {
    description:
      "`invalid_request`: the operation's path was asked with a method it does not take; `Allow` names those it " +
      'takes (OPTIONS on the path answers 204 with the same `Allow`).',
    headers: { ...successHeaders, Allow: ref('headers', 'Allow') },
    example: errorExample('invalid_request', 'PUT is not allowed here; this path takes GET, PATCH, DELETE, HEAD'),
  },
  PayloadTooLarge: {
    description:
      '`invalid_request`: the body is larger than 256 KiB. Any body sent is read, so any operation may answer it.',
    headers: successHeaders,
    example: errorExample('invalid_request', 'The request body is larger than 256 KiB'),
  },
  TooManyRequests: {
    description:
      '`rate_limited`: the per-token request rate is spent (600 per minute by default). Wait `Retry-After` seconds.',
    headers: { ...successHeaders, 'Retry-After': ref('headers', 'RetryAfter') },
    example: errorExample('rate_limited', 'Rate limit of 600 requests per minute exceeded'),
  },
  PreconditionFailed: {
    description:
      '`precondition_failed`: `If-Match` names a version the record no longer has (someone changed it since it was read). ' +
      'Nothing was written; `details.version` is the current version: read the record again and retry.',
    headers: successHeaders,
    example: errorExample(
      'precondition_failed',
      'The monitor has changed: it is at version 4, not the one If-Match names; read it again and retry',
      { version: 4 },
    ),
  },
  ServiceUnavailable: {
    description:
      '`internal`: a dependency (PostgreSQL or Redis) is unavailable. Nothing was changed; retry after `Retry-After` seconds.',
    headers: { ...requestIdHeader, 'Retry-After': ref('headers', 'RetryAfter') },
    example: errorExample('internal', 'The service is temporarily unavailable (redis); retry shortly'),
  },
} as const;
type ErrorResponseName = keyof typeof ERROR_RESPONSES;

/** A GET of one versioned record sent `If-None-Match` with its current ETag: nothing has changed, no body. */
export const NOT_MODIFIED = {
  description:
    'Not modified: `If-None-Match` names the ETag the record still has (or `*`). No body; the ETag is sent again.',
  headers: { ...successHeaders, ETag: ref('headers', 'ETag') },
};

export const IF_NONE_MATCH_DESCRIPTION =
  'Optional revalidation: the `ETag` of the record as last read (`"3"`), or a list of them. When the record is still ' +
  'at that version the answer is 304 with no body.';

/** A 409 differs per operation, so it is written inline with the operation's own conditions. */
function conflict(description: string, example: string) {
  return {
    description: `\`conflict\`: ${description}`,
    headers: successHeaders,
    content: { 'application/json': { schema: ref('schemas', 'Error'), example: errorExample('conflict', example) } },
  };
}

export const IDEMPOTENCY_DESCRIPTION =
  'Optional safe-retry key: a unique value per logical request (a UUID is ideal), 1 to 255 characters. The key is scoped to the ' +
  "workspace and the token's principal and kept for 24 hours with the first successful response. A retry with the same key and " +
  'the same body replays that response (same status and body) with `Idempotent-Replayed: true`, and the action is not performed ' +
  'twice. The same key with a different body: 400. A retry while the first request is still in flight: 409 (retry shortly). ' +
  'Requests that fail (validation, permissions, conflicts) are not stored, so the key can be reused after fixing them.';

export const IF_MATCH_DESCRIPTION =
  'Optional optimistic-concurrency condition: the `ETag` of the record as last read (`"3"`), or a list of them, or `*` ' +
  '(the record must exist). Another version: 412 `precondition_failed` and nothing is written. Checked in the write ' +
  'itself, so of two writers holding the same version exactly one succeeds. Weak tags (`W/"3"`) never match; a value ' +
  'that is not a list of entity tags is 400.';

/** Path parameters by name: each is a shared component (`{id}` is any record's uuid). */
const PATH_PARAMETERS: Record<string, string> = {
  id: 'Id',
  subscriberId: 'SubscriberId',
  userId: 'UserId',
  overrideId: 'OverrideId',
  name: 'SecretName',
};

function pathParameters(path: string) {
  return [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map(([, name]) => {
    const component = PATH_PARAMETERS[name!];
    if (!component) throw new Error(`${path}: declare the path parameter {${name}} in PATH_PARAMETERS`);
    return ref('parameters', component);
  });
}

/** The path item of one declared operation. */
export function operationOf(route: ApiRoute): RouteConfig {
  const errors = (name: ErrorResponseName) => ref('responses', name);
  const status = successStatus(route);
  const success = successOf(route);
  const hasId = route.path.includes('{');
  const conditional = takesIfMatch(route);
  const body = route.request?.body;
  const responses: RouteConfig['responses'] = {};
  const schema = success.data
    ? z.object({ data: success.data })
    : success.page
      ? z.object({ data: z.array(success.page), pagination: paginationSchema })
      : success.body;
  // A single record with a version answers its ETag (mountRoutes sets it from the answer), and a GET of it 304.
  const versioned = success.data instanceof z.ZodObject && 'version' in success.data.shape;
  const revalidates = versioned && route.method === 'get';
  responses[String(status)] = {
    description: success.description,
    headers: {
      ...successHeaders,
      ...(versioned ? { ETag: ref('headers', 'ETag') } : {}),
      ...(route.idempotent ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}),
    },
    ...(schema
      ? {
          content: {
            'application/json': { schema },
            ...(route.csv
              ? { 'text/csv': { schema: z.string().openapi({ description: route.csv.description }) } }
              : {}),
          },
        }
      : {}),
  };
  if (revalidates) responses['304'] = ref('responses', 'NotModified');
  responses['400'] = errors('BadRequest');
  responses['401'] = errors('Unauthorized');
  responses['403'] = errors('Forbidden');
  if (hasId) responses['404'] = errors('NotFound');
  const conflictResponse = route.responses[409];
  if (conflictResponse) responses['409'] = conflict(conflictResponse.description, conflictResponse.example);
  if (conditional) responses['412'] = errors('PreconditionFailed');
  // A path answers 405 to the methods it does not take (mountRoutes); a body is read whenever one is sent.
  responses['405'] = errors('MethodNotAllowed');
  responses['413'] = errors('PayloadTooLarge');
  responses['429'] = errors('TooManyRequests');
  responses['503'] = errors('ServiceUnavailable');

  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    description: `${route.description} ${ROLE_NOTE[route.roles]}`,
    tags: [route.tag],
    parameters: [
      ...pathParameters(route.path),
      // A person's own operations (`/me/...`) do not read the workspace header.
      ...(route.roles === 'self' ? [] : [ref('parameters', 'WorkspaceHeader')]),
      ...(route.idempotent ? [ref('parameters', 'IdempotencyKey')] : []),
      ...(conditional ? [ref('parameters', 'IfMatch')] : []),
      ...(revalidates ? [ref('parameters', 'IfNoneMatch')] : []),
    ],
    request: {
      ...(route.request?.query ? { query: route.request.query as z.ZodObject } : {}),
      ...(body
        ? {
            body: {
              required: true,
              content: {
                'application/json': {
                  schema: body.schema,
                  ...(body.examples ? { examples: body.examples } : {}),
                },
                ...(body.yaml ? { 'application/yaml': { schema: body.schema } } : {}),
              },
            },
          }
        : {}),
    },
    responses,
  };
}

/** The name of the response component a HEAD answers in place of an error component: its headers, no body. */
export const headResponseName = (name: string) => `${name}ToHead`;

/** A response of the document, as a HEAD answers it: the same status and headers, no body. */
function withoutBody(response: RouteConfig['responses'][string]): RouteConfig['responses'][string] {
  const name = (response as { $ref?: string }).$ref?.split('/').pop();
  if (name && name in ERROR_RESPONSES) return ref('responses', headResponseName(name));
  if (name) return response;
  const { content: _content, ...rest } = response as { content?: unknown };
  return rest as RouteConfig['responses'][string];
}

/**
 * HEAD of a GET path: Express answers it with the GET's handler, so with its status and headers (ETag, 304 and
 * every error included) and no body.
 */
export function headOperationOf(route: ApiRoute): RouteConfig {
  const get = operationOf(route);
  return {
    ...get,
    method: 'head',
    operationId: `${route.operationId}Head`,
    summary: `${route.summary} (headers only)`,
    description: `As \`GET ${route.path}\` (${route.operationId}), answered with its status and headers and no body.`,
    // A GET path always takes HEAD: never 405.
    responses: Object.fromEntries(
      Object.entries(get.responses)
        .filter(([code]) => code !== '405')
        .map(([code, r]) => [code, withoutBody(r)]),
    ),
  };
}
