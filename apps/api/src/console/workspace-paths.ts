import type { NavItem } from '../views/components/nav.js';
import { isReservedWorkspaceSlug } from './reserved-slugs.js';

/**
 * A workspace's console root: `/app/<slug>`, or the long form `/app/w/<slug>` for a slug the console reserves (a
 * workspace created before the reservation keeps working).
 */
export function workspaceBase(slug: string): string {
  return isReservedWorkspaceSlug(slug) ? `/app/w/${slug}` : `/app/${slug}`;
}

/** The sections of a workspace, in the order the navigation shows them (later stages add incidents, settings ...). */
export function workspaceNav(base: string): NavItem[] {
  return [{ id: 'monitors', label: 'Monitors', href: `${base}/monitors` }];
}
