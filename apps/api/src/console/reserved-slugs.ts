/**
 * The first path segments of the console that are not workspaces (`/app/<workspace-slug>/...` is the rest): a new
 * workspace may not take one (§7). `w` is the long form, `/app/w/<slug>/...`, that reaches any workspace.
 */
export const RESERVED_WORKSPACE_SLUGS = [
  'login',
  'logout',
  'forgot',
  'invite',
  'wall',
  'assets',
  'account',
  'w',
] as const;

export const isReservedWorkspaceSlug = (slug: string) =>
  (RESERVED_WORKSPACE_SLUGS as readonly string[]).includes(slug.toLowerCase());
