/**
 * Bytes per result in steady state, as written and once packed, at any size (bench/lib/packed-days.ts): the full bench
 * and `--cost-only` measure one day of 200 monitors every 60 s; this measures any.
 *
 *   npm run bench:packed -- --monitors 200 --interval 60 --days 1
 *
 * Writes bench/results/<start>-packed.json (the figures, commit and load average, as the bench's side runs).
 */
import { parseArgs } from 'node:util';
import { measurePackedDays, packedDaysLine } from './lib/packed-days.js';
import { RESULTS_DIR, ROOT } from './lib/paths.js';
import { gitState, writeSideResults } from './lib/report.js';

const { values: args } = parseArgs({
  options: {
    monitors: { type: 'string', default: '200' },
    interval: { type: 'string', default: '60' },
    days: { type: 'string', default: '1' },
  },
});
const startedAt = new Date();
const source = gitState();
const figures = await measurePackedDays({
  monitors: Number(args.monitors),
  intervalSeconds: Number(args.interval),
  days: Number(args.days),
});
process.stdout.write(
  `${packedDaysLine(figures)}, ${Math.round(figures.resultRows / (figures.packMs / 1000)).toLocaleString('en')} results/s\n`,
);
const { path } = writeSideResults(RESULTS_DIR, 'packed', { startedAt, source }, figures);
process.stdout.write(`wrote ${path.slice(ROOT.length + 1)}\n`);
