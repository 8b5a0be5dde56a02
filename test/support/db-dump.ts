import type { PrismaClient } from '@statusvane/shared';

/** Every row of every table in the public schema as text: what a leaked database dump would show. */
export async function dumpDatabase(prisma: PrismaClient): Promise<string> {
  const tables = await prisma.$queryRawUnsafe<Array<{ table_name: string }>>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await prisma.$queryRawUnsafe<Array<{ dump: string | null }>>(
      `SELECT json_agg(t)::text AS dump FROM "${table_name}" t`,
    );
    parts.push(`${table_name}: ${rows[0]?.dump ?? '[]'}`);
  }
  return parts.join('\n');
}
