export * from './common.js';
