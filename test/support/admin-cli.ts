/**
 * The admin CLI run in the test's own process: cli.ts, which main.ts runs, with the same parsing, output and exit
 * codes, without starting tsx for every command. test/admin-cli.test.ts and test/audit-events.test.ts also run it
 * as the README does, as a process of its own.
 */
import { runAdmin } from '../../apps/api/src/admin/cli.js';

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
