import { wallWorkspaceContext } from '../../services/auth/wall-context.js';
import { definePage, type PageDef } from '../define-page.js';
import { wallMonitors } from '../wall/wall-monitors.js';
import { WallView } from '../wall/wall-view.js';
import { notFoundPage } from './error-pages.js';

/** Never indexed, whoever links it: the page also says so in its meta robots. */
const NO_INDEX = { 'X-Robots-Tag': 'noindex, nofollow' };

/**
 * The wall view, `/app/wall/<token>` (beyond-the-seed §7): read-only, no sign-in; the token is the credential, read
 * on every request, so a deleted one is 404 on the next refresh. The URL holds the token: no referrer leaves.
 */
export function wallPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/wall/:token',
      access: 'public',
      handler: async (req) => {
        const ctx = await wallWorkspaceContext(req.deps.prisma, req.deps.logger, {
          token: req.params.token ?? '',
          now: req.now,
        });
        if (!ctx) {
          const gone = notFoundPage(
            req.assets,
            'This wall link does not work (any more): ask a workspace admin for a new one.',
          );
          return 'view' in gone ? { ...gone, headers: NO_INDEX, noReferrer: true } : gone;
        }
        const { monitors, counts } = await wallMonitors(req.deps, ctx);
        return {
          view: (
            <WallView
              assets={req.assets}
              workspaceName={ctx.workspace.name}
              monitors={monitors}
              counts={counts}
              now={req.now}
            />
          ),
          headers: NO_INDEX,
          noReferrer: true,
        };
      },
    }),
  ];
}
