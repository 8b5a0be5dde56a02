import { z } from 'zod';

const adminEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  SV_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
});

/** DATABASE_URL, or the local PostgreSQL that `npm start` / `npm run services start` runs under .data/. */
export function adminDatabaseUrl(env: NodeJS.ProcessEnv): string {
  const parsed = adminEnv.safeParse(env);
  if (!parsed.success)
    throw new Error(
      `Invalid environment: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return (
    parsed.data.DATABASE_URL ?? `postgresql://statusvane:statusvane@127.0.0.1:${parsed.data.SV_PG_PORT}/statusvane`
  );
}
