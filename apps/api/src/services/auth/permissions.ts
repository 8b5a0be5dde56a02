import { ForbiddenError, type Role } from '@statusvane/shared';

/** The role matrix from the decisions. GETs need no entry: every role may read. */
export const PERMISSIONS = {
  'monitors:write': ['owner', 'admin', 'member'],
  'monitors:delete': ['owner', 'admin'],
  'components:write': ['owner', 'admin', 'member'],
  'statusPages:manage': ['owner', 'admin'],
  'incidents:delete': ['owner', 'admin'],
  'incidents:respond': ['owner', 'admin', 'member'],
  'escalationPolicies:manage': ['owner', 'admin'],
  'tokens:manage': ['owner', 'admin'],
  'members:manage': ['owner', 'admin'],
  /** config/plan too: it compares secrets by value, which would let any reader test guesses of them. */
  'config:apply': ['owner', 'admin'],
  'audit:read': ['owner', 'admin'],
  'webhooks:manage': ['owner', 'admin'],
  'schedules:manage': ['owner', 'admin'],
  /** Writers may add (and remove) overrides for themselves; managers for anyone (services/schedules). */
  'schedules:override': ['owner', 'admin', 'member'],
  /** Wall view links: whoever holds one sees every monitor of the workspace, without signing in. */
  'wallTokens:manage': ['owner', 'admin'],
  'secrets:manage': ['owner', 'admin'],
  /** The accounting policy and sending the uptime report (beyond-the-seed §8). */
  'reports:manage': ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

export function assertCan(role: Role, permission: Permission): void {
  if (!can(role, permission)) throw new ForbiddenError(`The ${role} role may not perform this operation`);
}
