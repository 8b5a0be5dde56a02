/** Just enough of the Prometheus text format for the bench: samples by name and labels, and histogram quantiles. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseProm(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const matches = (s: Sample, name: string, labels: Record<string, string>) =>
  s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);

/** Sum of the samples with this name and (at least) these labels; null when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | null {
  const found = samples.filter((s) => matches(s, name, labels));
  return found.length ? found.reduce((a, s) => a + s.value, 0) : null;
}

/** Cumulative bucket counts of a histogram (summed over other labels), sorted by upper bound. */
export function buckets(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): Array<{ le: number; count: number }> {
  const by = new Map<number, number>();
  for (const s of samples) {
    if (!matches(s, `${name}_bucket`, labels)) continue;
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    by.set(le, (by.get(le) ?? 0) + s.value);
  }
  return [...by].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}

/** Difference of two cumulative bucket lists (after - before), for a window between two scrapes. */
export function bucketDelta(after: Array<{ le: number; count: number }>, before: Array<{ le: number; count: number }>) {
  return after.map((b) => ({ le: b.le, count: b.count - (before.find((x) => x.le === b.le)?.count ?? 0) }));
}

/** The upper bound of the bucket holding quantile q (what a histogram can say: "at most"). */
export function bucketQuantile(bs: Array<{ le: number; count: number }>, q: number): number | null {
  const total = bs.at(-1)?.count ?? 0;
  if (!total) return null;
  return bs.find((b) => b.count >= q * total)?.le ?? null;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`scrape ${url}: ${res.status}`);
  return parseProm(await res.text());
}

/** Exact percentile of a sorted array (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
