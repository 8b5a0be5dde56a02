export * from './with-timeout.js';
