// The response-time chart of a monitor's page: uPlot on a canvas, drawn from the series the server embedded in the
// chart's data-chart attribute (p50 and p95 per region, from the rollups). Without JavaScript the server's SVG and the
// data table are the chart; with it the SVG is hidden (class chart-drawn) and the canvas takes its place.
import uPlot from 'uplot';

/** What the server embeds (console/monitors/response-chart.tsx, ChartData). */
interface ChartData {
  /** Bucket starts, seconds since the epoch. */
  t: number[];
  series: Array<{ label: string; color: number; dashed: boolean; values: Array<number | null> }>;
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function draw(el: HTMLElement): void {
  const target = el.querySelector<HTMLElement>('.chart-canvas');
  if (!target || !el.dataset.chart) return;
  const data = JSON.parse(el.dataset.chart) as ChartData;
  const text = css('--muted') || '#555';
  const grid = css('--border') || '#ddd';
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const opts: uPlot.Options = {
    width: Math.max(280, target.clientWidth),
    height: 260,
    series: [
      { label: 'Time' },
      ...data.series.map((s) => ({
        label: s.label,
        stroke: css(`--chart-${s.color % 6}`) || '#1f5fbf',
        width: 2,
        ...(s.dashed ? { dash: [6, 4] } : {}),
        value: (_u: uPlot, v: number | null) => (v === null ? '–' : `${v} ms`),
      })),
    ],
    axes: [axis, { ...axis, size: 64, values: (_u: uPlot, ticks: number[]) => ticks.map((v) => `${v} ms`) }],
    scales: { y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(10, max * 1.1)] } },
    cursor: { drag: { x: false, y: false } },
  };
  const plot = new uPlot(opts, [data.t, ...data.series.map((s) => s.values)] as uPlot.AlignedData, target);
  el.classList.add('chart-drawn');
  new ResizeObserver(() => plot.setSize({ width: Math.max(280, target.clientWidth), height: 260 })).observe(target);
}

/** Draws every chart of the page. */
export function drawCharts(): void {
  for (const el of document.querySelectorAll<HTMLElement>('[data-chart]')) draw(el);
}
