export * from './ladder.js';
export * from './channels.js';
export * from './policy-in-effect.js';
export * from './target-secrets.js';
