export * from './queue.js';
export * from './tokens.js';
export * from './page-components.js';
export * from './public-incidents.js';
