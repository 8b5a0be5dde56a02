export * from './signature.js';
export * from './queue.js';
