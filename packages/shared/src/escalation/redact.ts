/**
 * How a delivery target is shown in records and logs. Webhook and Slack URLs are credentials (a Slack incoming
 * webhook URL is enough to post to the channel), so only `scheme://host[:port]/…` is shown; email addresses are
 * shown as they are (the workspace configured them, and they say who was paged).
 */
export function displayTarget(channel: 'webhook' | 'slack' | 'email', target: string): string {
  if (channel === 'email') return target;
  try {
    const url = new URL(target);
    return `${url.protocol}//${url.host}/…`;
  } catch {
    return '…';
  }
}
