import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import type { ConfigDeps } from './config-deps.js';
import { readConfigDocument } from './config-document.js';
import type { ConfigApplyInput } from './config-schema.js';
import { documentHash } from './config-state.js';
import { applyDocument } from './config-writer.js';
import type { ConfigPlanRecord } from './plan-config.js';

/**
 * POST /config/apply (managers): the plan, computed again under a per-workspace lock, applied in one transaction (all
 * or nothing). With `planId`, a document or a compared resource that changed since that plan is 409 and nothing is
 * written. Check schedules follow after the commit as a monitor create's do (the reconciler covers a Redis failure
 * in between), then created monitors get their first check at once.
 */
export async function applyConfig(
  deps: ConfigDeps,
  { ctx, input }: { ctx: ServiceContext; input: ConfigApplyInput },
): Promise<ConfigPlanRecord> {
  assertCan(ctx.role, 'config:apply');
  const doc = await readConfigDocument(input, deps.config.checkRegions);
  const { planId, ...document } = input;
  return applyDocument(deps, ctx, doc, documentHash(document), planId);
}
