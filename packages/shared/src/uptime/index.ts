export * from './accounting.js';
export * from './periods.js';
