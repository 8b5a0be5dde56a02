import type { ApiDeps } from '../../deps.js';
import type { ServiceContext } from '../../services/context.js';
import { countMonitors, type MonitorStatusCounts } from '../../services/monitors/count-monitors.js';
import { listMonitors, monitorListQuerySchema } from '../../services/monitors/list-monitors.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import type { MonitorStatus } from '../../views/components/status-badge.js';

/** Tiles a wall shows at most: a screen has room for about this many; the rest are counted in the summary. */
export const WALL_TILES = 120;

/** Worst first: what needs someone's eyes, then what is waiting, then what is fine, then what is switched off. */
export const WORST_FIRST: readonly MonitorStatus[] = ['down', 'degraded', 'pending', 'maintenance', 'up', 'paused'];

/**
 * The wall's monitors, worst first, at most WALL_TILES, through GET /monitors' own verb. SEAM: until the list sorts by
 * status (`sort=status`, console engineer A's addition to GET /monitors), it is asked once per check status in
 * WORST_FIRST order (then `enabled=false` for the paused ones), stopping when the wall is full; the records' own
 * `status` (maintenance included) orders the tiles.
 */
export async function wallMonitors(
  deps: ApiDeps,
  ctx: ServiceContext,
): Promise<{ monitors: MonitorRecord[]; counts: MonitorStatusCounts }> {
  const counts = await countMonitors(deps, { ctx, input: {} });
  const asks: Array<Record<string, string>> = [
    { status: 'down' },
    { status: 'degraded' },
    { status: 'pending' },
    { status: 'up' },
    { enabled: 'false' },
  ];
  const monitors: MonitorRecord[] = [];
  for (const ask of asks) {
    if (monitors.length >= WALL_TILES) break;
    const page = await listMonitors(deps, {
      ctx,
      input: monitorListQuerySchema.parse({ ...ask, perPage: String(WALL_TILES - monitors.length) }),
    });
    monitors.push(...page.data);
  }
  const rank = (m: MonitorRecord) => WORST_FIRST.indexOf(m.status);
  // A stable sort: within a status, the list's own order (oldest first) stays.
  return { monitors: monitors.sort((a, b) => rank(a) - rank(b)), counts };
}
