/**
 * A campaign's sending window: the days of the week and the hours, in a time zone, when its
 * sequence may send. Unset parts mean "any": no schedule at all sends at any time.
 */
import type { Schedule, Weekday } from '../store/campaigns.ts';

const WEEKDAYS: readonly Weekday[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export interface SendingWindow {
  timezone: string;
  days: ReadonlySet<Weekday>;
  /** First hour (0-23) and end hour (1-24, exclusive), local time. */
  startHour: number;
  endHour: number;
}

export interface LocalTime {
  /** YYYY-MM-DD */
  day: string;
  weekday: Weekday;
  hour: number;
  minute: number;
}

/** The window of a schedule; its time zone, else the profile's. */
export function sendingWindow(schedule: Schedule | undefined, profileTimezone: string): SendingWindow {
  return {
    timezone: schedule?.timezone ?? profileTimezone,
    days: new Set(schedule?.days ?? WEEKDAYS),
    startHour: schedule?.start_hour ?? 0,
    endHour: schedule?.end_hour ?? 24,
  };
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The local date, weekday and time of an instant in a time zone. */
export function localTime(at: Date, timezone: string): LocalTime {
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(timezone, format);
  }
  const parts: Record<string, string> = {};
  for (const p of format.formatToParts(at)) parts[p.type] = p.value;
  return {
    day: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: parts.weekday!.toLowerCase() as Weekday,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
  };
}

export function isOpen(window: SendingWindow, at: Date): boolean {
  const local = localTime(at, window.timezone);
  return window.days.has(local.weekday) && local.hour >= window.startHour && local.hour < window.endHour;
}

const STEP_MS = 15 * 60_000;

/**
 * The first instant at or after `at` when the window is open (to a quarter hour, which every
 * time zone's offsets are multiples of), or undefined if it never opens (no day allowed).
 */
export function nextOpening(window: SendingWindow, at: Date): Date | undefined {
  if (isOpen(window, at)) return at;
  let t = Math.ceil(at.getTime() / STEP_MS) * STEP_MS;
  for (let i = 0; i < (8 * 24 * 60 * 60_000) / STEP_MS; i++, t += STEP_MS) if (isOpen(window, new Date(t))) return new Date(t);
  return undefined;
}
