/** "just now", "5 min ago", "3 h ago", "2 days ago" (or "in ..." for a time ahead): how long ago, at a glance. */
export function relativeTime(at: Date, now: Date): string {
  const s = Math.round((now.getTime() - at.getTime()) / 1000);
  const future = s < 0;
  const a = Math.abs(s);
  let text: string;
  if (a < 45) return 'just now';
  if (a < 3600) text = `${Math.max(1, Math.round(a / 60))} min`;
  else if (a < 86_400) text = `${Math.round(a / 3600)} h`;
  else {
    const days = Math.round(a / 86_400);
    text = `${days} day${days === 1 ? '' : 's'}`;
  }
  return future ? `in ${text}` : `${text} ago`;
}
