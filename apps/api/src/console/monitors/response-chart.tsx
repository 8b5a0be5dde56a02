import type { ResponseTimeHistory } from '../../services/monitors/get-response-times.js';
import { linePaths } from './sparkline.js';

/** The ranges a monitor's page charts, each one period of `GET /monitors/{id}/response-times`. */
export const CHART_RANGES = {
  '24h': { period: 'day', label: '24 hours' },
  '7d': { period: 'week', label: '7 days' },
  '30d': { period: 'month', label: '30 days' },
  '90d': { period: 'quarter', label: '90 days' },
} as const;
export type ChartRange = keyof typeof CHART_RANGES;

/** One line of the chart. */
interface ChartSeries {
  label: string;
  /** Index of the region: its colour (`--chart-<n % 6>`). */
  color: number;
  /** p95 is dashed, p50 solid. */
  dashed: boolean;
  values: Array<number | null>;
}

/** What the page embeds for the enhancement script (client/monitor-chart.ts): bucket starts in seconds, the lines. */
export interface ChartData {
  t: number[];
  series: ChartSeries[];
}

/** p50 and p95 of each region's history, as chart lines (all histories share their buckets). */
export function chartData(histories: ReadonlyArray<ResponseTimeHistory>): ChartData {
  const first = histories[0];
  return {
    t: first ? first.buckets.map((b) => Date.parse(b.bucketStart) / 1000) : [],
    series: histories.flatMap((h, i) => [
      { label: `${h.region} p50`, color: i, dashed: false, values: h.buckets.map((b) => b.p50Ms) },
      { label: `${h.region} p95`, color: i, dashed: true, values: h.buckets.map((b) => b.p95Ms) },
    ]),
  };
}

const W = 720;
const H = 240;
const LEFT = 56;
const BOTTOM = 24;

const when = (seconds: number, range: ChartRange) => {
  const iso = new Date(seconds * 1000).toISOString();
  return range === '24h' ? `${iso.slice(11, 16)} UTC` : iso.slice(0, 10);
};

/**
 * The response-time chart: the server draws it as SVG (lines per region, p95 dashed, the axes labelled), which is
 * what a browser without JavaScript shows; the data ride along in `data-chart` for the canvas chart the script draws
 * in its place. The same figures are in the table below it.
 */
export function ResponseChart(props: { data: ChartData; range: ChartRange; title: string }) {
  const { data, range } = props;
  const all = data.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = all.length ? Math.max(10, Math.ceil((Math.max(...all) * 1.1) / 10) * 10) : 100;
  const plot = { width: W - LEFT, height: H - BOTTOM, pad: 4, max };
  const ticks = [0, Math.round(max / 2), max];
  const summary = all.length
    ? `${props.title}: ${data.series.length / 2} region${data.series.length === 2 ? '' : 's'}, from ${Math.min(...all)} to ${Math.max(...all)} ms`
    : `${props.title}: no response times in this range yet`;
  return (
    <figure class="chart" data-chart={JSON.stringify(data)}>
      <div class="chart-canvas" aria-hidden="true" />
      <svg class="chart-svg" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <title>{summary}</title>
        {ticks.map((t) => {
          const y = plot.height - plot.pad - (t / max) * (plot.height - 2 * plot.pad);
          return (
            <g class="chart-grid">
              <line x1={LEFT} x2={W} y1={y} y2={y} />
              <text x={LEFT - 6} y={y + 4} text-anchor="end">{`${t} ms`}</text>
            </g>
          );
        })}
        {data.t.length > 0 && (
          <g class="chart-grid">
            <text x={LEFT} y={H - 6}>
              {when(data.t[0]!, range)}
            </text>
            <text x={W} y={H - 6} text-anchor="end">
              {when(data.t.at(-1)!, range)}
            </text>
          </g>
        )}
        <g transform={`translate(${LEFT} 0)`}>
          {data.series.map((s) =>
            linePaths(s.values, plot).map((points) => (
              <polyline class={`chart-line chart-c${s.color % 6}${s.dashed ? ' chart-dashed' : ''}`} points={points} />
            )),
          )}
        </g>
      </svg>
      <figcaption>
        <ul class="chart-legend">
          {data.series.map((s) => (
            <li>
              <span class={`swatch chart-c${s.color % 6}${s.dashed ? ' chart-dashed' : ''}`} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** The chart's figures as a table (inside a disclosure: the accessible and script-free reading of the chart). */
export function ResponseTable(props: { data: ChartData; range: ChartRange }) {
  const { data, range } = props;
  return (
    <details class="chart-table">
      <summary>Show the figures as a table</summary>
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Response times per bucket and region">
        <table class="table">
          <caption class="visually-hidden">Response times per bucket and region</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {data.series.map((s) => (
                <th scope="col">{s.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.t.map((t, i) => (
              <tr>
                <th scope="row">{when(t, range)}</th>
                {data.series.map((s) => (
                  <td>{s.values[i] === null ? '–' : `${s.values[i]} ms`}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
