// Types for scripts/services.mjs (plain JavaScript, so that it runs before anything is built), for TypeScript callers
// such as bench/.
export function ensureServices(options?: { quiet?: boolean }): Promise<{ databaseUrl: string; redisUrl: string }>;
export function stopServices(options?: { quiet?: boolean }): Promise<{ postgres: string; redis: string }>;
export function servicesStatus(): Promise<unknown>;
export function serviceUrls(): { databaseUrl: string; redisUrl: string };
