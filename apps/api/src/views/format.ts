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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "28 Nov 2026, 19:43 UTC": an instant people read, in UTC (the server does not know the reader's time zone). */
export function dateTimeUtc(at: Date): string {
  const hh = String(at.getUTCHours()).padStart(2, '0');
  const mm = String(at.getUTCMinutes()).padStart(2, '0');
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${hh}:${mm} UTC`;
}

/** "45 s", "12 min", "3 h 5 min", "2 days 4 h": how long something lasted, to the unit that matters. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const days = Math.floor(h / 24);
  return `${days} day${days === 1 ? '' : 's'}${h % 24 ? ` ${h % 24} h` : ''}`;
}
