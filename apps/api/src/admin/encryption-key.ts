import { parseConfig, type EncryptionKey, type Keyring } from '@statusvane/shared';
import { adminDatabaseUrl } from './database-url.js';

/**
 * The keyring as the API and worker see it (ENCRYPTION_KEY, else the development key under DATA_DIR, plus
 * ENCRYPTION_OLD_KEYS), for `secrets rotate`. The admin CLI needs no Redis, so a placeholder REDIS_URL only
 * satisfies the shared config schema.
 */
export function adminKeyring(env: NodeJS.ProcessEnv): Keyring {
  return parseConfig({
    ...env,
    DATABASE_URL: adminDatabaseUrl(env),
    REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  }).encryption;
}

/** The current key with its id, for commands that encrypt (escalation targets). */
export function adminCurrentKey(env: NodeJS.ProcessEnv): EncryptionKey {
  return adminKeyring(env).current;
}

/** The current key's bytes, for commands that derive secrets from it (the webhook signing secret). */
export function adminEncryptionKey(env: NodeJS.ProcessEnv): Buffer {
  return adminCurrentKey(env).key;
}
