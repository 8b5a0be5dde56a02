import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import type { ConfigDeps } from './config-deps.js';
import { readConfigDocument } from './config-document.js';
import type { ConfigDocumentInput } from './config-schema.js';
import { computePlan, documentHash, type ConfigChange, type ChangeAction } from './config-state.js';

export interface ConfigPlanRecord {
  planId: string;
  changes: ConfigChange[];
  summary: Record<ChangeAction, number>;
}

/**
 * POST /config/plan (managers: comparing secrets by value would otherwise let any reader test guesses of them): what
 * applying the document would do, resource by resource. Nothing is written.
 */
export async function planConfig(
  deps: Omit<ConfigDeps, 'scheduler'>,
  { ctx, input }: { ctx: ServiceContext; input: ConfigDocumentInput },
): Promise<ConfigPlanRecord> {
  assertCan(ctx.role, 'config:apply');
  const doc = await readConfigDocument(input, deps.config.checkRegions);
  const plan = await computePlan(deps.prisma, deps, ctx.workspace.id, doc, documentHash(input));
  return { planId: plan.planId, changes: plan.changes, summary: plan.summary };
}
