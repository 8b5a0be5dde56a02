export * from './secrets.js';
export * from './redact.js';
