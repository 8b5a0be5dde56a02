import { instantOfWallClock } from '@statusvane/shared';

/** How the on-call pages write instants: on the schedule's wall clock, as its people read it. */
export interface ZonedFormat {
  /** "Mon 30 Nov" */
  day: (at: Date) => string;
  /** "09:00" */
  time: (at: Date) => string;
  /** "Mon 30 Nov, 09:00" */
  when: (at: Date) => string;
  /** "2026-11-30T09:00": the value of a datetime-local field. */
  field: (at: Date) => string;
}

export function zonedFormat(timezone: string): ZonedFormat {
  const day = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });
  const time = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return {
    day: (at) => day.format(at),
    time: (at) => time.format(at),
    when: (at) => `${day.format(at)}, ${time.format(at)}`,
    field: (at) => {
      const p = Object.fromEntries(parts.formatToParts(at).map((x) => [x.type, x.value]));
      return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
    },
  };
}

/**
 * The local midnights of `days` days from the one `now` falls on, on the schedule's wall clock (days < 24 h long on
 * a daylight-saving change keep their midnights).
 */
export function localMidnights(timezone: string, now: Date, days: number): Date[] {
  const today = zonedFormat(timezone).field(now).slice(0, 10);
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  return Array.from({ length: days + 1 }, (_, i) => {
    const date = new Date(Date.UTC(y, m - 1, d + i)).toISOString().slice(0, 10);
    return instantOfWallClock(timezone, `${date}T00:00`)!;
  });
}
