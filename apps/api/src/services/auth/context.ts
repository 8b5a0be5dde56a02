import type { PlanName, Role } from '@statusvane/shared';

export type TokenKind = 'org' | 'personal' | 'oauth';

/** Who is calling, in which workspace, with which role. Every service verb takes it and scopes by workspace.id. */
export interface RequestContext {
  workspace: { id: string; slug: string; name: string; plan: PlanName };
  role: Role;
  tokenId: string;
  tokenKind: TokenKind;
  userId: string | null;
  /** Stable id of the caller for per-principal state (safe-retry keys): the user, or the org token. */
  principal: string;
}
