/**
 * The typed client of the Statusvane management API: openapi-fetch over the types openapi-typescript generates from
 * the document the API serves (`npm run sdk:generate` writes src/generated/schema.ts; `npm run sdk:check`, part of
 * `npm run lint`, fails when it is stale). Every path, parameter, body and answer is typed as the document says.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/schema.js';

export type { components, paths };
/** The named schemas of the document: `Schemas['Monitor']`, `Schemas['ConfigPlan']` ... */
export type Schemas = components['schemas'];
export type StatusvaneClient = Client<paths>;

export interface StatusvaneOptions {
  /** The service root, such as `http://localhost:3000` (the API is under `/api/v1`). */
  url: string;
  /** An API token (`Authorization: Bearer ...`). */
  token: string;
  /** For a personal token in several workspaces: the workspace's slug or id (`X-Statusvane-Workspace`). */
  workspace?: string | undefined;
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/** The API base (`<root>/api/v1`) of a service root, with or without a trailing slash. */
export function apiBase(url: string): string {
  return `${url.replace(/\/+$/, '')}/api/v1`;
}

/** A client of one workspace of one Statusvane service. */
export function createStatusvaneClient(opts: StatusvaneOptions): StatusvaneClient {
  return createClient<paths>({
    baseUrl: apiBase(opts.url),
    headers: {
      Authorization: `Bearer ${opts.token}`,
      ...(opts.workspace ? { 'X-Statusvane-Workspace': opts.workspace } : {}),
    },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}
