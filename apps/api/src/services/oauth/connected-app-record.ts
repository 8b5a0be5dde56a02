import type { Prisma } from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';

export const connectedAppRecordSchema = z
  .object({
    id: z.uuid().openapi({ description: 'The connection: what `DELETE /me/connected-apps/{id}` revokes.' }),
    clientId: z.uuid().openapi({ description: "The app's OAuth `client_id`." }),
    name: z.string().nullable().openapi({
      description: 'The name the app registered with: unverified (anyone can register any name). Null: none given.',
    }),
    redirectHosts: z.array(z.string()).openapi({
      description: 'Where the app receives its codes: the hosts (or private-use schemes) of its redirect URIs.',
    }),
    scope: z.enum(['read', 'write']).openapi({ description: '`write` includes `read`.' }),
    workspaces: z
      .array(z.object({ id: z.uuid(), slug: z.string(), name: z.string() }))
      .openapi({ description: 'The granted workspaces you are still a member of.' }),
    primaryWorkspaceId: z.uuid(),
    createdAt: dateTime,
    lastUsedAt: dateTime.nullable().openapi({ description: 'When it last got a token (a refresh counts).' }),
  })
  .openapi('ConnectedApp', { description: 'An app you allowed to act for you through OAuth (an MCP client ...).' });
export type ConnectedAppRecord = z.infer<typeof connectedAppRecordSchema>;

export const connectedAppSelect = {
  id: true,
  clientId: true,
  scope: true,
  workspaceIds: true,
  primaryWorkspaceId: true,
  createdAt: true,
  lastUsedAt: true,
  client: { select: { name: true, redirectUris: true } },
} satisfies Prisma.OAuthConnectionSelect;

/** Where a redirect URI sends codes, as the consent page and the list show it: the host, or the private-use scheme. */
export function redirectHost(uri: string): string {
  const url = URL.parse(uri);
  if (!url) return uri;
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : url.protocol;
}

export function toConnectedAppRecord(
  row: Prisma.OAuthConnectionGetPayload<{ select: typeof connectedAppSelect }>,
  workspaces: ReadonlyMap<string, { id: string; slug: string; name: string }>,
): ConnectedAppRecord {
  return {
    id: row.id,
    clientId: row.clientId,
    name: row.client.name || null,
    redirectHosts: [...new Set(row.client.redirectUris.map(redirectHost))],
    scope: row.scope,
    workspaces: row.workspaceIds.flatMap((id) => (workspaces.has(id) ? [workspaces.get(id)!] : [])),
    primaryWorkspaceId: row.primaryWorkspaceId,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
