/**
 * The admin CLI run in the test's own process: cli.ts, which main.ts runs, with the same parsing, output and exit
 * codes, without starting tsx for every command. `adminProcess` runs it as the README does, as a process of its own
 * (test/admin-cli.test.ts and test/audit-events.test.ts).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runAdmin } from '../../apps/api/src/admin/cli.js';

const root = join(import.meta.dirname, '..', '..');

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run -s admin -- ...args` with the test's environment plus `env`. */
export async function adminCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<AdminRun> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    env: { ...process.env, ...env },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** `npm run -s admin -- ...args`: the process scripts/admin.mjs starts (tsx and main.ts), with the test's environment. */
export async function adminProcess(args: string[]): Promise<AdminRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/tsx/dist/cli.mjs'), 'apps/api/src/admin/main.ts', ...args],
      { cwd: root, env: process.env, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
