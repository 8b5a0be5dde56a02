import type { PublicPageData } from '../../services/status-pages/public-page.js';
import type { UptimeDay } from '../../services/status-pages/uptime.js';

type Series = PublicPageData['uptime']['components'][number];

/** A day's bar level. */
export function barClass(d: UptimeDay): string {
  if (d.percent === null) return 'b-none';
  if (d.downCount === 0) return d.degradedCount === 0 ? 'b-up' : 'b-deg';
  return d.percent >= 99 ? 'b-part' : 'b-down';
}

/** A day in words: what its bar shows. */
export function dayText(d: UptimeDay): string {
  if (d.percent === null) return `${d.date}: no data`;
  const failed = d.downCount === 0 ? 'no failed checks' : `${d.downCount} of ${d.total} checks failed`;
  return `${d.date}: ${d.percent}% uptime, ${failed}${d.degradedCount ? `, ${d.degradedCount} slow` : ''}`;
}

/** What each bar colour means, in words (worst last, as the colours go). */
export const BAR_KEY: ReadonlyArray<[string, string]> = [
  ['b-up', 'No failed checks'],
  ['b-deg', 'Slow checks, none failed'],
  ['b-part', 'Some failed checks (99% or more up)'],
  ['b-down', 'Failed checks (under 99% up)'],
  ['b-none', 'No data'],
];

/** The days a text reader is told about in the label: those with failed checks, worst first, at most this many. */
const WORST_DAYS = 5;

/**
 * A component's daily bars, then the same days as a list inside a <details>: each day's detail opens by keyboard
 * and by touch without JavaScript (the bars' tooltips are for a mouse only).
 */
export function UptimeBars({ series, days, name }: { series: Series | undefined; days: number; name: string }) {
  if (!series) return null;
  const pct = series.percent === null ? 'No data' : `${series.percent}% uptime`;
  const bad = series.days
    .filter((d) => d.percent !== null && d.downCount > 0)
    .sort((x, y) => x.percent! - y.percent! || x.date.localeCompare(y.date))
    .slice(0, WORST_DAYS);
  const label =
    `Uptime over the last ${days} days: ${pct}. ` +
    (bad.length
      ? `Days with failed checks: ${bad.map((d) => `${d.date} ${d.percent}%`).join(', ')}.`
      : series.percent === null
        ? ''
        : 'No day with failed checks.');
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
        <span class="uptime-pct">{pct}</span>
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
