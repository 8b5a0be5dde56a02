import { NotFoundError, SECRET_NAME, type Prisma, type PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';

/** A workspace secret as the API shows it: never its value. */
export const secretRecordSchema = z
  .object({
    name: z.string().openapi({ example: 'API_TOKEN' }),
    allowedHosts: z.array(z.string()).openapi({
      description: 'The only hosts a request carrying the value may go to (exact host names, case-insensitive).',
    }),
    usedBy: z.array(z.uuid()).openapi({ description: 'The monitors whose steps, headers or bodies name it.' }),
    version: versionSchema,
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .openapi('Secret');
export type SecretRecord = z.infer<typeof secretRecordSchema>;

export const secretRecordSelect = {
  id: true,
  name: true,
  allowedHosts: true,
  version: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.WorkspaceSecretSelect;
export type SecretRow = Prisma.WorkspaceSecretGetPayload<{ select: typeof secretRecordSelect }>;

export function toSecretRecord(row: SecretRow, usedBy: readonly string[]): SecretRecord {
  return {
    name: row.name,
    allowedHosts: row.allowedHosts,
    usedBy: [...usedBy],
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The path's `{name}`: routes lower-case path parameters (they are ids elsewhere), and a secret's name is upper case
 * by its own rule, so the name asked for is upper-cased back.
 */
export const secretNameOf = (param: string): string => param.toUpperCase();

/** One of the workspace's secrets by name, or 404 (a name that could never be one included). */
export async function findSecret(
  db: Pick<PrismaClient, 'workspaceSecret'>,
  workspaceId: string,
  name: string,
): Promise<SecretRow> {
  const row = SECRET_NAME.test(name)
    ? await db.workspaceSecret.findUnique({
        where: { workspaceId_name: { workspaceId, name } },
        select: secretRecordSelect,
      })
    : null;
  if (!row) throw new NotFoundError('secret', name);
  return row;
}

/** The workspace's monitors that name each of `names` (`usedBy`), by name. */
export async function secretUsers(
  db: Pick<PrismaClient, 'monitor'>,
  workspaceId: string,
  names: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map(names.map((n) => [n, [] as string[]]));
  if (names.length === 0) return out;
  const monitors = await db.monitor.findMany({
    where: { workspaceId, secretRefs: { hasSome: [...names] } },
    select: { id: true, secretRefs: true },
    orderBy: { id: 'asc' },
  });
  for (const m of monitors) for (const n of m.secretRefs) out.get(n)?.push(m.id);
  return out;
}
