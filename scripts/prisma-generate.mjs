// Generates the Prisma client offline. `prisma generate` wants to download the native schema engine first;
// pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file skips that (generation itself needs no engine).
// The variable is set only for this child process: migrate commands must never see it (they would apply nothing).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'node_modules', 'prisma', 'build', 'index.js');
if (!existsSync(cli)) {
  console.error('[prisma-generate] prisma is not installed yet: run `npm ci` first');
  process.exit(1);
}
const result = spawnSync(process.execPath, [cli, 'generate', '--no-hints'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
if (result.status !== 0) {
  console.error('[prisma-generate] prisma generate failed');
  process.exit(result.status ?? 1);
}
