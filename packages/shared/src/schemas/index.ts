export * from './common.js';
export * from './monitor.js';
export * from './maintenance.js';
export * from './status-page.js';
export * from './response-times.js';
export * from './input-fields.js';
export * from './incident.js';
export * from './shown-text.js';
