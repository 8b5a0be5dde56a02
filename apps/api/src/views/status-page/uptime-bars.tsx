import type { PublicPageData } from '../../services/status-pages/public-page.js';
import type { UptimeDay } from '../../services/status-pages/uptime.js';
import { duration } from './status-words.js';

type Series = PublicPageData['uptime']['components'][number];

/** A day's colour from its uptime under the workspace policy: full (degraded or not), 99% or more, less, no data. */
function barClass(d: UptimeDay): string {
  if (d.percent === null) return 'b-none';
  if (d.percent === 100) return d.degradedSeconds === 0 ? 'b-up' : 'b-deg';
  return d.percent >= 99 ? 'b-part' : 'b-down';
}

/** A day in words: what its bar shows. */
function dayText(d: UptimeDay): string {
  if (d.percent === null) return `${d.date}: no data`;
  const parts = [
    d.downSeconds ? `${duration(d.downSeconds)} down` : 'no down time',
    ...(d.degradedSeconds ? [`${duration(d.degradedSeconds)} degraded`] : []),
    ...(d.maintenanceSeconds ? [`${duration(d.maintenanceSeconds)} in maintenance`] : []),
  ];
  return `${d.date}: ${d.percent}% uptime, ${parts.join(', ')}`;
}

/** How the figures were counted, in words: the workspace's accounting policy, named by its version. */
export const policyText = (policy: PublicPageData['uptime']['policy']) =>
  `Maintenance ${policy.maintenance}, degraded counted ${policy.degraded}, no data ${policy.noData} (accounting policy version ${policy.version})`;

/**
 * The page's overall uptime (every shown component's seconds counted as one under the same policy as the bars),
 * or nothing when the policy counted nothing.
 */
export function OverallUptime({ uptime }: { uptime: PublicPageData['uptime'] }) {
  if (uptime.percent === null) return null;
  return (
    <p class="overall-uptime" title={policyText(uptime.policy)}>
      <strong>{uptime.percent}%</strong> uptime over the last {uptime.days} days
    </p>
  );
}

/** What each bar colour means, in words (worst last, as the colours go). */
export const BAR_KEY: ReadonlyArray<[string, string]> = [
  ['b-up', 'Fully up'],
  ['b-deg', 'Degraded, fully up'],
  ['b-part', 'Partly down (99% or more up)'],
  ['b-down', 'Down (under 99% up)'],
  ['b-none', 'No data'],
];

/** The days a text reader is told about in the label: those under 100%, worst first, at most this many. */
const WORST_DAYS = 5;

/**
 * A component's daily bars, then the same days as a list inside a <details>: each day's detail opens by keyboard
 * and by touch without JavaScript (the bars' tooltips are for a mouse only).
 */
export function UptimeBars({
  series,
  days,
  name,
  policy,
}: {
  series: Series | undefined;
  days: number;
  name: string;
  policy: PublicPageData['uptime']['policy'];
}) {
  if (!series) return null;
  const pct = series.percent === null ? 'No data' : `${series.percent}% uptime`;
  const bad = series.days
    .filter((d) => d.percent !== null && d.percent < 100)
    .sort((x, y) => x.percent! - y.percent! || x.date.localeCompare(y.date))
    .slice(0, WORST_DAYS);
  const label =
    `Uptime over the last ${days} days: ${pct}. ` +
    (bad.length
      ? `Days under 100%: ${bad.map((d) => `${d.date} ${d.percent}%`).join(', ')}.`
      : series.percent === null
        ? ''
        : 'No day under 100%.');
  const counted = policyText(policy);
  return (
    <>
      <div class="bars" role="img" aria-label={label.trim()}>
        {series.days.map((d) => (
          <span class={`bar ${barClass(d)}`} title={dayText(d)} />
        ))}
      </div>
      <div class="legend muted" aria-hidden="true">
        <span>
          <span class="d90">{days} days ago</span>
          <span class="d60">60 days ago</span>
          <span class="d30">30 days ago</span>
        </span>
        <span class="uptime-pct" title={counted}>
          {pct}
        </span>
        <span>Today</span>
      </div>
      <details class="day-detail">
        <summary>Each day of {name}</summary>
        <ol class="days" reversed>
          {[...series.days].reverse().map((d) => (
            <li>
              <span class={`swatch ${barClass(d)}`} aria-hidden="true" />
              {dayText(d)}
            </li>
          ))}
        </ol>
      </details>
    </>
  );
}
