import { parseConfig, type EncryptionKey } from '@statusvane/shared';
import { adminDatabaseUrl } from './database-url.js';

/**
 * The current encryption key as the API and worker see it (ENCRYPTION_KEY, else the development key under
 * DATA_DIR), for commands that derive secrets from it. The admin CLI needs no Redis, so a placeholder REDIS_URL
 * only satisfies the shared config schema.
 */
export function adminEncryptionKey(env: NodeJS.ProcessEnv): Buffer {
  return adminCurrentKey(env).key;
}

/** The same key with its id, for commands that encrypt (escalation targets). */
export function adminCurrentKey(env: NodeJS.ProcessEnv): EncryptionKey {
  return parseConfig({ ...env, DATABASE_URL: adminDatabaseUrl(env), REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379' }).encryption.current;
}
