import { ForbiddenError } from '@statusvane/shared';
import { assertCan, can } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';

/**
 * Who may add or remove an override for `userId`: managers for anyone; any other writer only for themselves (a
 * person's token or session, never an org token, which is nobody).
 */
export function assertMayOverride(ctx: ServiceContext, userId: string): void {
  assertCan(ctx.role, 'schedules:override');
  if (can(ctx.role, 'schedules:manage') || ctx.userId === userId) return;
  throw new ForbiddenError(`The ${ctx.role} role may add and remove overrides for its own user only`);
}
