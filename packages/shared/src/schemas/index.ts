export * from './common.js';
export * from './monitor.js';
