import { cliWriteContext } from '../services/audit/record-write.js';
import type { ServiceContext } from '../services/context.js';

/**
 * The admin CLI calling a request service (one service for the API and the CLI): an operator on the machine, with the
 * owner's rights in the workspace named by `--workspace`, and no token or Idempotency-Key.
 */
export function cliContext(
  ws: { id: string; slug: string; name: string; plan: ServiceContext['workspace']['plan'] },
  now = new Date(),
): ServiceContext {
  return {
    workspace: { id: ws.id, slug: ws.slug, name: ws.name, plan: ws.plan },
    role: 'owner',
    tokenId: 'admin-cli',
    tokenKind: 'org',
    userId: null,
    principal: 'cli',
    actor: cliWriteContext(ws.id, now).actor,
    now,
  };
}
