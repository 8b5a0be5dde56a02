// `npm run admin -- <group> <command> [--options]`: the admin CLI (apps/api/src/admin/main.ts) against DATABASE_URL,
// or, when that is unset, the local PostgreSQL that `npm start` and `npm run services -- start` run (its URL as
// scripts/services.mjs gives it: SV_PG_PORT and the role's password under .data/). Nothing is started here.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceUrls } from './services.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const r = spawnSync(
  process.execPath,
  [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'apps/api/src/admin/main.ts'), ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, DATABASE_URL: serviceUrls().databaseUrl } },
);
process.exit(r.status ?? 1);
