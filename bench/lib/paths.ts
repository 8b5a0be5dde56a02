import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const RESULTS_DIR = join(ROOT, 'bench/results');
export const DOCS_FILE = join(ROOT, 'docs/benchmarks.md');
export const CHART_FILE = join(ROOT, 'docs/benchmarks/lateness.svg');
