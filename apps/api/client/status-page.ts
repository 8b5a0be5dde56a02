// The status page's one script, and an optional one: the server writes every time in UTC ("2026-05-01 10:00 UTC",
// the instant in `datetime`), which is what visitors without JavaScript read. This rewrites each to the visitor's own
// time zone, named ("1 May 2026, 12:00 CEST"), and keeps the UTC text as its tooltip. Loaded from this origin with
// `defer` (the page's CSP allows scripts from here only, none inline).

const format = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});

for (const el of Array.from(document.querySelectorAll<HTMLTimeElement>('time[datetime]'))) {
  const at = new Date(el.dateTime);
  if (Number.isNaN(at.getTime())) continue;
  el.title = el.textContent ?? '';
  el.textContent = format.format(at);
  el.dataset.local = 'true';
}
