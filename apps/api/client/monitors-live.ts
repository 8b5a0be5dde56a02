// Live status on the monitors pages: follows the server-sent events of /app/<ws>/monitors/live (fed by the event
// log, from the cursor the page was drawn at) and patches every element marked data-monitor="<id>": its data-status,
// its status badge and its "last check" time. Without JavaScript (or EventSource) the page is simply as drawn.

const LABELS: Record<string, string> = {
  up: 'Up',
  degraded: 'Degraded',
  down: 'Down',
  paused: 'Paused',
  maintenance: 'Maintenance',
  pending: 'Pending',
};

interface StatusChange {
  id: string;
  name: string;
  status: string;
  lastCheckedAt: string | null;
}

function patch(change: StatusChange, announcer: HTMLElement | null): void {
  const label = LABELS[change.status];
  if (!label) return;
  let changed = false;
  for (const el of document.querySelectorAll<HTMLElement>(`[data-monitor="${CSS.escape(change.id)}"]`)) {
    if (el.dataset.status !== change.status) changed = true;
    el.dataset.status = change.status;
    const badge = el.querySelector<HTMLElement>('.badge');
    if (badge) {
      badge.className = `badge badge-${change.status}`;
      const text = badge.querySelector('.badge-text');
      if (text) text.textContent = label;
    }
    const when = el.querySelector<HTMLTimeElement>('time[data-last-check]');
    if (when && change.lastCheckedAt) {
      when.dateTime = change.lastCheckedAt;
      when.title = change.lastCheckedAt;
      when.textContent = 'just now';
    }
  }
  if (changed && announcer) announcer.textContent = `${change.name} is ${label.toLowerCase()}.`;
}

/** Starts following status changes when the page asks for it (an element with data-live). */
export function followStatus(): void {
  const root = document.querySelector<HTMLElement>('[data-live]');
  if (!root || typeof EventSource === 'undefined') return;
  const url = root.dataset.live!;
  let after = root.dataset.after ?? '';
  const announcer = document.getElementById('live-announcer');
  const connect = () => {
    const source = new EventSource(`${url}?after=${encodeURIComponent(after)}`);
    source.addEventListener('status', (event) => {
      const e = event as MessageEvent<string>;
      if (e.lastEventId) after = e.lastEventId;
      for (const change of JSON.parse(e.data) as StatusChange[]) patch(change, announcer);
    });
    // The session ended (signed out, removed from the workspace): stop, the next page load asks to sign in.
    source.addEventListener('end', () => source.close());
    // The server ends each stream after a while, and networks drop: resume from the last event seen.
    source.addEventListener('error', () => {
      source.close();
      window.setTimeout(connect, 2000);
    });
  };
  connect();
}
