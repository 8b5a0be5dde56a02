export * from './common.js';
export * from './monitor.js';
export * from './response-times.js';
