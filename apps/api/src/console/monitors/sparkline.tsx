import type { ResponseSparkline } from '../../services/monitors/list-response-sparklines.js';

const W = 96;
const H = 24;
const PAD = 2;

/** The polylines of a series scaled into a box: a gap (null) ends a line; a lone point is a short dash. */
export function linePaths(
  values: ReadonlyArray<number | null>,
  box: { width: number; height: number; pad: number; max: number },
): string[] {
  const n = values.length;
  const x = (i: number) => box.pad + (n <= 1 ? 0 : (i * (box.width - 2 * box.pad)) / (n - 1));
  const y = (v: number) => box.height - box.pad - (box.max <= 0 ? 0 : (v / box.max) * (box.height - 2 * box.pad));
  const lines: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length === 1) {
      const [px, py] = current[0]!.split(',').map(Number) as [number, number];
      current = [`${(px - 1.5).toFixed(1)},${py}`, `${(px + 1.5).toFixed(1)},${py}`];
    }
    if (current.length) lines.push(current.join(' '));
    current = [];
  };
  values.forEach((v, i) => {
    if (v === null) flush();
    else current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  flush();
  return lines;
}

/**
 * A monitor's response times over the last 24 hours as a small line, drawn on the server (inline SVG: no script, no
 * style attribute), with its figures in words for screen readers and as a tooltip.
 */
export function Sparkline({ line }: { line: ResponseSparkline }) {
  const values = line.hours;
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0 || line.avgMs === null) return <span class="muted">No data</span>;
  const max = Math.max(...present);
  const avg = line.avgMs;
  const label = `Response time over the last 24 hours: ${avg} ms on average, ${max} ms in the slowest hour`;
  return (
    <span class="spark-cell">
      <svg class="spark" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={label}>
        <title>{label}</title>
        {linePaths(values, { width: W, height: H, pad: PAD, max }).map((points) => (
          <polyline points={points} />
        ))}
      </svg>
      <span class="spark-value">{avg} ms</span>
    </span>
  );
}
