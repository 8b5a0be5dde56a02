import { BRANDING_FIELDS } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import type { ConfigDeps } from './config-deps.js';
import { accountingView, loadState, storedPageView } from './config-state.js';
import { exportedPolicy, storedPolicyView } from './policy-views.js';
import type { View } from './config-schema.js';
import { exportedMonitor, storedMonitorView } from './monitor-views.js';
import { exportedSchedule, storedScheduleView } from './schedule-views.js';

/**
 * GET /config: the managed resources as a document (defaults left out, secrets `"<redacted>"`, which plan and apply
 * read as "unchanged"). Planning it back gives only noop. A section component whose monitor the document does not
 * manage is left out: a document can only name managed monitors. The accounting policy is always there (its defaults
 * until changed).
 */
export async function getConfig(
  deps: Pick<ConfigDeps, 'prisma' | 'config'>,
  { ctx }: { ctx: ServiceContext },
): Promise<{
  version: 1;
  monitors: View[];
  escalationPolicies: View[];
  statusPages: View[];
  accounting: View;
  schedules: View[];
}> {
  const state = await loadState(deps.prisma, ctx.workspace.id);
  const componentRefs = new Map([...state.monitors.values()].map((m) => [m.componentId, m.ref!]));
  return {
    version: 1,
    monitors: [...state.monitors].map(([ref, row]) =>
      exportedMonitor(ref, storedMonitorView(row, deps.config.encryption, state.policyRefs)),
    ),
    escalationPolicies: [...state.policies].map(([ref, row]) =>
      exportedPolicy(ref, storedPolicyView(row, deps.config.encryption)),
    ),
    statusPages: [...state.statusPages].map(([ref, page]) => {
      const view = storedPageView(page, componentRefs);
      const sections = (view.sections as Array<{ name: string; monitors: string[] }>).map((s) => ({
        name: s.name,
        monitors: s.monitors.filter((m) => state.monitors.has(m)),
      }));
      // Branding left out where there is none (null is its default).
      const branding = BRANDING_FIELDS.filter((f) => view[f] !== null).map((f) => [f, view[f]]);
      return {
        ref,
        name: view.name,
        slug: view.slug,
        isPublic: view.isPublic,
        sections,
        ...Object.fromEntries(branding),
      };
    }),
    accounting: accountingView(state.accounting),
    schedules: [...state.schedules].map(([ref, row]) => exportedSchedule(ref, storedScheduleView(row))),
  };
}
