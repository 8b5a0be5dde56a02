import { sessionUserContext } from '../../services/auth/session-context.js';
import { deleteConnectedApp } from '../../services/oauth/delete-connected-app.js';
import { listConnectedApps } from '../../services/oauth/list-connected-apps.js';
import { Button } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { PostForm } from '../../views/components/form.js';
import { DataTable } from '../../views/components/table.js';
import { relativeTime } from '../../views/format.js';
import { ConsoleLayout } from '../../views/layout.js';
import { definePage, type PageDef } from '../define-page.js';

export const CONNECTED_APPS_PATH = '/app/account/connected-apps';

/**
 * The apps a person allowed through OAuth (`/app/account/connected-apps`): theirs in every workspace, as
 * `/me/connected-apps` is; revoking one ends its tokens at once.
 */
export function connectedAppPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/account/connected-apps',
      access: 'user',
      handler: async (req) => {
        const apps = await listConnectedApps(req.deps, { ctx: sessionUserContext(req.session, req.now), input: {} });
        const flash =
          req.query.done === 'revoked' ? { kind: 'notice' as const, text: 'The app is disconnected.' } : null;
        return {
          view: (
            <ConsoleLayout chrome={req.chrome} title="Connected apps" section="account" flash={flash}>
              <div class="page-header">
                <div>
                  <h1>Connected apps</h1>
                  <p>
                    Apps you allowed to use Statusvane as you (AI assistants, MCP clients). Names are what each app says
                    about itself, unverified.
                  </p>
                </div>
              </div>
              {apps.length === 0 ? (
                <EmptyState title="No connected apps">An app asks for your consent when it connects.</EmptyState>
              ) : (
                <DataTable
                  caption="Connected apps"
                  captionHidden
                  rows={apps}
                  rowId={(a) => `app-${a.id}`}
                  columns={[
                    { header: 'App', cell: (a) => <>{a.name ?? 'An unnamed app'} (unverified)</> },
                    { header: 'Receives access at', cell: (a) => a.redirectHosts.join(', ') },
                    { header: 'Scope', cell: (a) => a.scope },
                    {
                      header: 'Workspaces',
                      cell: (a) =>
                        a.workspaces
                          .map((w) => (w.id === a.primaryWorkspaceId ? `${w.name} (primary)` : w.name))
                          .join(', '),
                    },
                    {
                      header: 'Last used',
                      cell: (a) => (a.lastUsedAt ? relativeTime(new Date(a.lastUsedAt), req.now) : 'never'),
                    },
                    {
                      header: 'Actions',
                      hiddenHeader: true,
                      cell: (a) => (
                        <PostForm action={`${CONNECTED_APPS_PATH}/${a.id}/revoke`} csrf={req.csrf}>
                          <Button
                            variant="danger"
                            small
                            confirm={`Disconnect ${a.name ?? 'this app'}?`}
                            label={`Disconnect ${a.name ?? 'this app'}`}
                          >
                            Disconnect
                          </Button>
                        </PostForm>
                      ),
                    },
                  ]}
                />
              )}
            </ConsoleLayout>
          ),
        };
      },
    }),
    definePage({
      method: 'post',
      path: '/account/connected-apps/:id/revoke',
      access: 'user',
      handler: async (req) => {
        await deleteConnectedApp(req.deps, {
          ctx: sessionUserContext(req.session, req.now),
          input: { id: req.params.id! },
        });
        return { redirect: `${CONNECTED_APPS_PATH}?done=revoked` };
      },
    }),
  ];
}
