export * from './prisma.js';
export * from './redis.js';
export * from './unavailable.js';
export * from './rollups.js';
export * from './batch-loader.js';
export * from './rollups-batch.js';
export * from './results.js';
export * from './console-sessions.js';
