/** A monitor's status as the API names it. */
export type MonitorStatus = 'up' | 'degraded' | 'down' | 'paused' | 'maintenance' | 'pending';

export const STATUS_LABELS: Record<MonitorStatus, string> = {
  up: 'Up',
  degraded: 'Degraded',
  down: 'Down',
  paused: 'Paused',
  maintenance: 'Maintenance',
  pending: 'Pending',
};

/** A status in words with a shape and colour beside them: never colour alone (the live script swaps both). */
export function StatusBadge({ status }: { status: MonitorStatus }) {
  return (
    <span class={`badge badge-${status}`}>
      <span class="dot" aria-hidden="true" />
      <span class="badge-text">{STATUS_LABELS[status]}</span>
    </span>
  );
}
