import type { MonitorStatusCounts } from '../../services/monitors/count-monitors.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import type { AssetUrls } from '../../views/assets.js';
import { StatusBadge, STATUS_LABELS } from '../../views/components/status-badge.js';
import { Document } from '../../views/document.js';
import { relativeTime } from '../../views/format.js';
import { WORST_FIRST } from './wall-monitors.js';

/** How often the wall redraws itself (in place with JavaScript, a meta refresh without: views/document.tsx). */
export const WALL_REFRESH_SECONDS = 30;

/** The headline: all well, or what is wrong, in words. */
function headline(counts: MonitorStatusCounts): { text: string; tone: 'up' | 'degraded' | 'down' } {
  if (counts.down > 0) return { text: `${counts.down} down`, tone: 'down' };
  if (counts.degraded > 0) return { text: `${counts.degraded} degraded`, tone: 'degraded' };
  return { text: counts.total === 0 ? 'No monitors yet' : 'All monitors up', tone: 'up' };
}

/**
 * The wall view: a dark-friendly full-screen board of large tiles, the worst first, for a screen nobody touches. It
 * reloads itself every WALL_REFRESH_SECONDS and shows when it was drawn, so a frozen screen is noticed.
 */
export function WallView(props: {
  assets: AssetUrls;
  workspaceName: string;
  monitors: readonly MonitorRecord[];
  counts: MonitorStatusCounts;
  now: Date;
}) {
  const { counts, monitors, now } = props;
  const head = headline(counts);
  const hidden = counts.total - monitors.length;
  return (
    <Document
      title={`${props.workspaceName} wall`}
      assets={props.assets}
      bodyClass="wall"
      refreshSeconds={WALL_REFRESH_SECONDS}
    >
      <main id="main" class="wall-main">
        <header class="wall-header">
          <div>
            <h1>{props.workspaceName}</h1>
            <p class={`wall-headline tone-${head.tone}`}>
              <span class="dot" aria-hidden="true" />
              {head.text}
            </p>
          </div>
          <div class="wall-meta">
            <ul class="wall-counts" aria-label="Monitors by status">
              {WORST_FIRST.filter((s) => counts[s] > 0).map((s) => (
                <li class={`count-${s}`}>
                  <span class="dot" aria-hidden="true" />
                  {STATUS_LABELS[s]} <strong>{counts[s]}</strong>
                </li>
              ))}
            </ul>
            <p class="wall-updated">
              Updated <time datetime={now.toISOString()}>{now.toISOString().slice(11, 16)} UTC</time> · refreshes every{' '}
              {WALL_REFRESH_SECONDS} s
            </p>
          </div>
        </header>
        {monitors.length === 0 ? (
          <p class="wall-empty">Nothing to watch yet: monitors appear here once they are created.</p>
        ) : (
          <ul class="wall-tiles" aria-label="Monitors, worst first">
            {monitors.map((m) => (
              <li class={`wall-tile tile-${m.status}`} id={`monitor-${m.id}`} data-status={m.status}>
                <StatusBadge status={m.status} />
                <p class="wall-tile-name">{m.name}</p>
                <p class="wall-tile-when">
                  {m.lastCheckedAt ? `Checked ${relativeTime(new Date(m.lastCheckedAt), now)}` : 'Not checked yet'}
                </p>
              </li>
            ))}
          </ul>
        )}
        {hidden > 0 && (
          <p class="wall-more">
            and {hidden} more monitor{hidden === 1 ? '' : 's'} (the board shows the {monitors.length} that need eyes
            first)
          </p>
        )}
      </main>
    </Document>
  );
}
