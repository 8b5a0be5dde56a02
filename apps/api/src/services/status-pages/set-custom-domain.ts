import { ConflictError, type Config, type Issue } from '@statusvane/shared';

/*
 * The rules of a page's `customDomain` (PATCH /status-pages/{id}) beyond its schema (customDomainInputSchema). DNS (a
 * CNAME to the deployment) and TLS are the user's and the proxy's business: nothing here checks them.
 */

/** 400 for the deployment's own host name: it would shadow every page. */
export function ownHostIssues(config: Pick<Config, 'publicBaseUrl'>, customDomain: string | null): Issue[] {
  return customDomain !== null && customDomain === new URL(config.publicBaseUrl).hostname.toLowerCase()
    ? [{ path: 'customDomain', message: "Must not be the service's own host name" }]
    : [];
}

/** The 409 for a domain another page has. */
export const domainTaken = (customDomain: string | null) =>
  new ConflictError('This domain serves another status page', { customDomain, reason: 'taken' });
