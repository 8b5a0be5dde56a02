import type { Permission } from '../services/auth/permissions.js';
import type { NavItem } from '../views/components/nav.js';
import { isReservedWorkspaceSlug } from './reserved-slugs.js';

/**
 * A workspace's console root: `/app/<slug>`, or the long form `/app/w/<slug>` for a slug the console reserves (a
 * workspace created before the reservation keeps working).
 */
export function workspaceBase(slug: string): string {
  return isReservedWorkspaceSlug(slug) ? `/app/w/${slug}` : `/app/${slug}`;
}

/** The sections of a workspace, in the order the navigation shows them. */
export function workspaceNav(base: string): NavItem[] {
  return [
    { id: 'monitors', label: 'Monitors', href: `${base}/monitors` },
    { id: 'oncall', label: 'On call', href: `${base}/oncall` },
    { id: 'incidents', label: 'Incidents', href: `${base}/incidents` },
    { id: 'maintenance', label: 'Maintenance', href: `${base}/maintenance` },
    { id: 'status-pages', label: 'Status pages', href: `${base}/status-pages` },
    { id: 'settings', label: 'Settings', href: `${base}/settings` },
  ];
}

/** A section of a workspace's settings, and the permission its page needs (none: every role may read it). */
export interface SettingsSection extends NavItem {
  needs?: Permission;
}

/**
 * The sections of a workspace's settings, in the order its side navigation shows them: a new one (accounting policy,
 * schedules, connected apps) is one entry here and its pages. Sections a role may not open are not shown to it.
 */
export function settingsNav(base: string): SettingsSection[] {
  const at = (path: string) => `${base}/settings/${path}`;
  return [
    { id: 'members', label: 'Members', href: at('members') },
    { id: 'tokens', label: 'API tokens', href: at('tokens'), needs: 'tokens:manage' },
    { id: 'escalation', label: 'Escalation policies', href: at('escalation-policies') },
    { id: 'webhooks', label: 'Webhooks', href: at('webhooks'), needs: 'webhooks:manage' },
    { id: 'wall', label: 'Wall views', href: at('wall'), needs: 'wallTokens:manage' },
    { id: 'audit', label: 'Audit log', href: at('audit'), needs: 'audit:read' },
  ];
}
