import type { PlanName, Role } from '@statusvane/shared';

export type TokenKind = 'org' | 'personal' | 'oauth';

/**
 * Who made a change, as audit events show it: an org token (its id and name), a user acting through a personal or
 * OAuth token (the user's id, and name or email), or the admin CLI (the operating-system user that ran it).
 */
export interface AuditActor {
  type: 'token' | 'user' | 'cli' | 'link';
  id: string;
  name: string;
  /** A user acting through an app connected over OAuth: the app's client id. */
  clientId?: string;
}

/** Who is calling, in which workspace, with which role. Every service verb takes it and scopes by workspace.id. */
export interface RequestContext {
  workspace: { id: string; slug: string; name: string; plan: PlanName };
  role: Role;
  /** The token's id; for the console (`session`), the console session's id; for a wall view, its wall token's. */
  tokenId: string;
  tokenKind: TokenKind | 'session' | 'link' | 'wall';
  userId: string | null;
  /** Stable id of the caller for per-principal state (safe-retry keys): the user, or the org token. */
  principal: string;
  /** Who the audit events of this request's writes name. */
  actor: AuditActor;
  /**
   * An OAuth token's scope: `read` may only read (a write is 403 `insufficient_scope`), `write` may do what the
   * user's role allows. Absent: every other caller, limited by its role alone.
   */
  scope?: 'read' | 'write';
}

/**
 * Who calls a `/me/...` operation: a person, in no particular workspace (their contact methods and calendar feed are
 * theirs everywhere). `readOnly`: an OAuth (`mcp_at_`) token, which may read them but not change them.
 */
export interface UserContext {
  userId: string;
  tokenId: string;
  tokenKind: 'personal' | 'oauth' | 'session';
  principal: string;
  actor: AuditActor;
  readOnly: boolean;
}
