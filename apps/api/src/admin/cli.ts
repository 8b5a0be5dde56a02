// The admin CLI: `npm run -s admin -- <group> <command> [--options]`. Each command prints one JSON object on
// stdout and exits 0; bad arguments print a message on stderr, exit non-zero and write nothing. It reads the same
// variables as the API, through the config module (DATABASE_URL is required: `npm run admin` fills it in with the
// local PostgreSQL of scripts/services.mjs when it is unset). main.ts is the process around it; `runAdmin` takes
// its arguments, environment and output streams as parameters, so one process can run many commands (the tests).
import { Command, CommanderError } from 'commander';
import {
  AppError,
  ConfigError,
  createPrisma,
  createSsrfGuard,
  isUnavailableError,
  parseEnvSubset,
  parseKeyring,
  parsePublicBaseUrl,
  type PrismaClient,
} from '@statusvane/shared';
import { addMember, createToken, createUser, createWorkspace, removeMember, revokeToken } from './admin-commands.js';
import { arrangeStatusPage, clearStatusPagePassword, setStatusPagePassword } from './status-page-commands.js';
import { assignPolicy, createPolicy, policySigningSecret } from './policy-commands.js';
import { rotateSecrets } from './secret-commands.js';
import { userResetLink, userResetTwoFactor } from './user-commands.js';

type Action = (prisma: PrismaClient, opts: Record<string, unknown>) => Promise<unknown>;

/** What a run of the CLI reads and writes besides the database: the process's, or a test's. */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The command line parsed into the one command it chose (commander calls `.action` during the parse). */
interface Chosen {
  action: Action | null;
  opts: Record<string, unknown>;
}

function buildProgram(io: AdminIo, chosen: Chosen): Command {
  const { env } = io;
  const run = (action: Action) => (opts: Record<string, unknown>) => {
    chosen.action = action;
    chosen.opts = opts;
  };
  const program = new Command('admin').description('Statusvane administration').exitOverride().showHelpAfterError();
  program.configureOutput({ writeErr: io.stderr, writeOut: io.stderr });

  const workspace = program.command('workspace').description('workspaces').exitOverride();
  workspace
    .command('create')
    .requiredOption('--slug <slug>')
    .requiredOption('--name <name>')
    .option('--plan <plan>', 'free|solo|team|business')
    .exitOverride()
    .action(run((p, o) => createWorkspace(p, o)));

  const user = program.command('user').description('users').exitOverride();
  user
    .command('create')
    .requiredOption('--email <email>')
    .option('--name <name>')
    .exitOverride()
    .action(run((p, o) => createUser(p, o)));

  user
    .command('reset-link')
    .description('print a one-time link to set a console password (where no mail is set up)')
    .requiredOption('--email <email>')
    .exitOverride()
    .action(run((p, o) => userResetLink(p, o, { publicBaseUrl: parsePublicBaseUrl(env) })));
  user
    .command('reset-2fa')
    .description("turn off a user's two-factor sign-in (lost device and recovery codes); ends their sessions")
    .requiredOption('--email <email>')
    .exitOverride()
    .action(run((p, o) => userResetTwoFactor(p, o)));

  const member = program.command('member').description('memberships').exitOverride();
  member
    .command('add')
    .requiredOption('--workspace <slugOrId>')
    .requiredOption('--email <email>')
    .requiredOption('--role <role>', 'owner|admin|member|viewer')
    .exitOverride()
    .action(run((p, o) => addMember(p, o)));
  member
    .command('remove')
    .requiredOption('--workspace <slugOrId>')
    .requiredOption('--email <email>')
    .exitOverride()
    .action(run((p, o) => removeMember(p, o)));

  const token = program.command('token').description('API tokens').exitOverride();
  token
    .command('create')
    .requiredOption('--kind <kind>', 'org|personal|oauth')
    .option('--workspace <slugOrId>', 'org tokens')
    .option('--role <role>', 'org tokens')
    .option('--email <email>', 'personal and oauth tokens')
    .option('--workspaces <slugs>', 'oauth: comma-separated grants')
    .option('--primary <slug>', 'oauth: primary workspace')
    .option('--expires-in <seconds>', 'oauth: lifetime, default 3600')
    .option('--expires-in-days <days>', 'org tokens: it stops working this many days from now (1..3650)')
    .option('--name <label>', 'org tokens: default "admin CLI"')
    .exitOverride()
    .action(run((p, o) => createToken(p, o)));
  token
    .command('revoke')
    .requiredOption('--id <tokenId>')
    .exitOverride()
    .action(run((p, o) => revokeToken(p, o)));

  const statusPage = program.command('status-page').description('status pages').exitOverride();
  statusPage
    .command('set-password')
    .requiredOption('--id <statusPageId>')
    .requiredOption('--password <password>', 'at least 8 characters')
    .exitOverride()
    .action(run((p, o) => setStatusPagePassword(p, o, { publicBaseUrl: parsePublicBaseUrl(env) })));
  statusPage
    .command('clear-password')
    .requiredOption('--id <statusPageId>')
    .exitOverride()
    .action(run((p, o) => clearStatusPagePassword(p, o, { publicBaseUrl: parsePublicBaseUrl(env) })));
  statusPage
    .command('arrange')
    .requiredOption('--id <statusPageId>')
    .requiredOption(
      '--json <sections>',
      '[{ "name": "API", "componentIds": ["<uuid>", ...] }, ...]; [] clears the layout',
    )
    .exitOverride()
    .action(run((p, o) => arrangeStatusPage(p, o)));

  const policy = program.command('policy').description('escalation policies').exitOverride();
  policy
    .command('create')
    .requiredOption('--workspace <slugOrId>')
    .requiredOption(
      '--json <policy>',
      '{ "name", "repeatCount", "silent", "runbook", "steps": [{ "delayMinutes", "minImpact", "targets": [{ "channel", "target" }] }] }',
    )
    .option('--default', "make it the workspace's default policy")
    .exitOverride()
    // Webhook and Slack URLs are checked against the SSRF policy the worker enforces.
    // Targets are stored encrypted with the deployment's ENCRYPTION_KEY.
    .action(
      run((p, o) =>
        createPolicy(p, o, {
          guard: createSsrfGuard({
            allowedCidrs: parseEnvSubset(env, ['ALLOWED_TARGET_CIDRS']).ALLOWED_TARGET_CIDRS,
          }),
          encryption: parseKeyring(env).current,
        }),
      ),
    );
  policy
    .command('assign')
    .requiredOption('--monitor <monitorId>')
    .requiredOption('--policy <policyId>', 'a policy of the same workspace, or "none" to remove it')
    .exitOverride()
    .action(
      run((p, o) =>
        assignPolicy(p, o, {
          publicBaseUrl: parsePublicBaseUrl(env),
          checkRegions: parseEnvSubset(env, ['CHECK_REGIONS']).CHECK_REGIONS,
        }),
      ),
    );
  policy
    .command('signing-secret')
    .requiredOption('--workspace <slugOrId>')
    .exitOverride()
    .action(run((p, o) => policySigningSecret(p, o, { encryptionKey: parseKeyring(env).current.key })));

  const secrets = program
    .command('secrets')
    .description('encrypted secrets (monitors, targets, webhooks, subscribers)')
    .exitOverride();
  secrets
    .command('rotate')
    .description(
      're-encrypt every stored secret under ENCRYPTION_KEY, so that the keys in ENCRYPTION_OLD_KEYS can be retired',
    )
    .exitOverride()
    .action(run((p, o) => rotateSecrets(p, o, { keyring: parseKeyring(env) })));
  return program;
}

/** `expiresIn` -> `--expires-in`: issues name the option as it is typed, not the key it is parsed into. */
function flagOf(path: string): string {
  const [head = '', ...rest] = path.split(/(?=[.[])/);
  return `--${head.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${rest.join('')}`;
}

/** What a failed command prints on stderr: one readable line (plus one per offending option), never a driver dump. */
export function describeFailure(err: unknown): string {
  if (err instanceof AppError) {
    const issues = (err.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
    if (issues.length === 0) return `error: ${err.message}\n`;
    const flags = [...new Set(issues.map((i) => (i.path ? flagOf(i.path) : '(arguments)')))];
    return `error: invalid arguments: ${flags.join(', ')}\n${issues.map((i) => `  ${i.path ? flagOf(i.path) : '(arguments)'}: ${i.message}\n`).join('')}`;
  }
  if (err instanceof ConfigError) return `error: ${err.message}\n`;
  if (isUnavailableError(err))
    return 'error: the database is unreachable (check DATABASE_URL, or start it with `npm run services -- start`); nothing was written\n';
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'P2002') {
    return 'error: that would create a duplicate (the same value given twice, or created meanwhile by someone else); nothing was written\n';
  }
  if (code === 'P2003' || code === 'P2025') {
    return 'error: a record the command needs was removed meanwhile; nothing was written\n';
  }
  // Anything else: its last line (Prisma puts the reason after the call site), without the stack.
  const message =
    String((err as Error)?.message ?? err)
      .trim()
      .split('\n')
      .filter(Boolean)
      .pop() ?? 'unknown error';
  return `error: ${message}\n`;
}

/** Parses argv, runs the chosen command against the database, prints its JSON. Returns the exit code. */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const chosen: Chosen = { action: null, opts: {} };
  const program = buildProgram(io, chosen);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.stderr(describeFailure(err));
    return 1;
  }
  const { action, opts } = chosen;
  if (!action) {
    program.outputHelp();
    return 2;
  }
  let prisma: PrismaClient;
  try {
    prisma = createPrisma(parseEnvSubset(io.env, ['DATABASE_URL']).DATABASE_URL, { max: 2 });
  } catch (err) {
    io.stderr(describeFailure(err));
    return 1;
  }
  try {
    const out = await action(prisma, opts);
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } catch (err) {
    io.stderr(describeFailure(err));
    return 1;
  } finally {
    await prisma.$disconnect().catch(() => undefined);
  }
}
