export * from './accounting.js';
export * from './periods.js';
export * from './load-timelines.js';
export * from './report.js';
export * from './report-queue.js';
