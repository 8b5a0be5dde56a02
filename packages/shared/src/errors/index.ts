export * from './app-error.js';
export * from './zod-issues.js';
