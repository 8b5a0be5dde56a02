import type { LinkState } from '../services/action-links/action-link-state.js';
import type { AssetUrls } from './assets.js';
import { Button } from './components/button.js';
import { AuthLayout, MessagePage } from './layout.js';

const VERB = { acknowledge: 'Acknowledge', resolve: 'Resolve' } as const;
const DONE = { acknowledge: 'acknowledged', resolve: 'resolved' } as const;

const WHY = {
  unknown: 'This link is not valid. Copy the whole address from the message, or act from the console.',
  used: 'This link has already been used. Each acknowledge or resolve link works once.',
  expired: 'This link has expired: links in a page work for 7 days.',
  resolved: 'This incident is already resolved, so its links no longer act.',
} as const;

function IncidentSummary({
  incident,
}: {
  incident: { title: string; impact: string; status: string; startedAt: Date };
}) {
  return (
    <dl class="facts">
      <dt>Incident</dt>
      <dd>{incident.title}</dd>
      <dt>Impact</dt>
      <dd>{incident.impact}</dd>
      <dt>Status</dt>
      <dd>{incident.status}</dd>
      <dt>Since</dt>
      <dd>
        <time dateTime={incident.startedAt.toISOString()}>{incident.startedAt.toISOString()}</time>
      </dd>
    </dl>
  );
}

/**
 * GET /a/<token>/<action>: what the link will do, and the one button that does it (a POST to the same address). A
 * link scanner or preview that fetches the page acts on nothing.
 */
export function ActionLinkConfirmPage(props: {
  assets: AssetUrls;
  state: Extract<LinkState, { usable: true }>;
  path: string;
}) {
  const verb = VERB[props.state.action];
  return (
    <AuthLayout
      assets={props.assets}
      title={`${verb} incident`}
      heading={`${verb} this incident?`}
      lead={`You were paged on ${props.state.paged}.`}
    >
      <IncidentSummary incident={props.state.incident} />
      <form method="post" action={props.path}>
        <Button>{verb}</Button>
      </form>
    </AuthLayout>
  );
}

/** After the POST: what was done. */
export function ActionLinkDonePage(props: { assets: AssetUrls; state: Extract<LinkState, { usable: true }> }) {
  const done = DONE[props.state.action];
  return (
    <AuthLayout assets={props.assets} title={`Incident ${done}`} heading={`Incident ${done}`}>
      <IncidentSummary incident={props.state.incident} />
    </AuthLayout>
  );
}

/** A link that cannot act (404 unknown, 410 used, expired or resolved), and why. */
export function ActionLinkGonePage(props: { assets: AssetUrls; state: Extract<LinkState, { usable: false }> }) {
  return (
    <MessagePage
      assets={props.assets}
      title={props.state.why === 'unknown' ? 'Link not found' : 'Link no longer valid'}
    >
      {WHY[props.state.why]}
    </MessagePage>
  );
}

/** The linked user may no longer act (403). */
export function ActionLinkRefusedPage(props: { assets: AssetUrls; message: string }) {
  return (
    <MessagePage assets={props.assets} title="Not allowed">
      {props.message}
    </MessagePage>
  );
}
