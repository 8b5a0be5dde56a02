export * from './expected.js';
