import { defineConfig } from 'prisma/config';

// Prisma 7 reads the connection from here, not from schema.prisma. Migrations are applied by
// scripts/migrate.ts (WebAssembly schema engine), which reads the same folder.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/statusvane' },
});
