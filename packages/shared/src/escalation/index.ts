export * from './ladder.js';
export * from './signing.js';
export * from './redact.js';
export * from './policy-in-effect.js';
export * from './target-secrets.js';
