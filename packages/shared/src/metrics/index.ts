export * from './registry.js';
export * from './http-metrics.js';
export * from './check-metrics.js';
export * from './queue-metrics.js';
export * from './metrics-server.js';
