export * from './templates.js';
export * from './re2.js';
export * from './response-schema.js';
export * from './step-assertions.js';
export * from './step-secrets.js';
export * from './step-results.js';
