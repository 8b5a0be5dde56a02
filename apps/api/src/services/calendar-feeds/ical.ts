/**
 * iCalendar (RFC 5545) for on-call feeds: a VCALENDAR of VEVENTs in UTC, lines folded at 75 octets and ended by CRLF,
 * text values escaped (section 3.3.11). Pure: no database, no clock.
 */

export interface FeedEvent {
  /** Stable across fetches, so a calendar app updates an event instead of duplicating it. */
  uid: string;
  start: Date;
  end: Date;
  summary: string;
  description: string;
}

/** `20261207T080000Z` (DATE-TIME in UTC, section 3.3.5 form #2). */
const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** TEXT escaping: backslash, semicolon and comma escaped; newlines as `\n`. */
const text = (s: string) => s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** Folds a content line into lines of at most 75 octets, continuation lines starting with one space (3.1). */
function fold(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let size = 0;
  for (const ch of line) {
    const n = Buffer.byteLength(ch, 'utf8');
    const limit = parts.length === 0 ? 75 : 74; // continuation lines lose one octet to the leading space
    if (size + n > limit) {
      parts.push(current);
      current = '';
      size = 0;
    }
    current += ch;
    size += n;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

/** The whole calendar. */
export function icalendar(name: string, events: readonly FeedEvent[], now: Date): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Statusvane//On-call feed//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${text(name)}`,
    // Calendar apps poll subscribed feeds; ask for an hour (a hint: each app keeps its own minimum).
    'REFRESH-INTERVAL;VALUE=DURATION:PT1H',
    'X-PUBLISHED-TTL:PT1H',
  ];
  for (const e of events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${text(e.uid)}`,
      `DTSTAMP:${stamp(now)}`,
      `DTSTART:${stamp(e.start)}`,
      `DTEND:${stamp(e.end)}`,
      `SUMMARY:${text(e.summary)}`,
      `DESCRIPTION:${text(e.description)}`,
      'TRANSP:TRANSPARENT',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return lines.map(fold).join('\r\n') + '\r\n';
}
