export * from './errors/index.js';
export * from './config/index.js';
export * from './crypto/index.js';
export * from './logging/index.js';
export * from './db/index.js';
export * from './queues/index.js';
export * from './schemas/index.js';
export * from './ssrf/index.js';
