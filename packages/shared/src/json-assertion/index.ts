export * from './json-assertion.js';
