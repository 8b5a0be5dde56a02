import { z } from 'zod';

const env = z.object({
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
});

/** The base URL the admin CLI prints status page URLs with: PUBLIC_BASE_URL, else the API's local default. */
export function adminPublicBaseUrl(input: NodeJS.ProcessEnv): string {
  const parsed = env.safeParse(input);
  if (!parsed.success)
    throw new Error(
      `Invalid environment: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return (parsed.data.PUBLIC_BASE_URL ?? `http://localhost:${parsed.data.PORT}`).replace(/\/+$/, '');
}
