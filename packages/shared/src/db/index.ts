export * from './prisma.js';
export * from './redis.js';
export * from './unavailable.js';
