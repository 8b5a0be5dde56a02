import { parseConfig, type Keyring } from '@statusvane/shared';
import { adminDatabaseUrl } from './database-url.js';

/**
 * The current encryption key as the API and worker see it (ENCRYPTION_KEY, else the development key under
 * DATA_DIR), for commands that derive secrets from it. The admin CLI needs no Redis, so a placeholder REDIS_URL
 * only satisfies the shared config schema.
 */
export function adminEncryptionKey(env: NodeJS.ProcessEnv): Buffer {
  return parseConfig({ ...env, DATABASE_URL: adminDatabaseUrl(env), REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379' }).encryption.current.key;
}

/** The whole keyring (ENCRYPTION_KEY and ENCRYPTION_OLD_KEYS), for `secrets rotate`. */
export function adminKeyring(env: NodeJS.ProcessEnv): Keyring {
  return parseConfig({ ...env, DATABASE_URL: adminDatabaseUrl(env), REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379' }).encryption;
}
