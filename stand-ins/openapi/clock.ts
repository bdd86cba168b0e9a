import { DAY_MS } from '../../shared/time/index.js';

/**
 * The emulator's clock and its date formats. Times are wall-clock milliseconds read with UTC getters, so
 * "2026-01-15 10:00:00" in the configuration is exactly what the API answers, whatever the host's zone.
 */

export interface Clock {
  now(): number;
  /** Freezes the clock at `ms` (admin API). */
  set(ms: number): void;
}

/** Frozen at `startMs` when given, otherwise real time until the first `set`. */
export function createClock(startMs?: number): Clock {
  let frozen: number | undefined = startMs;
  return {
    now: () => frozen ?? Date.now(),
    set: (ms) => {
      frozen = ms;
    },
  };
}

/**
 * Real elapsed milliseconds, monotonic (not the emulator's clock, which may be frozen, nor the host's wall
 * clock, which may be stepped): what the history lag measures a commit's age with.
 */
export const elapsedMs = (): number => performance.now();

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
/** PHP's `Y`: at least four digits (year 5 is 0005). */
const year4 = (y: number): string => (y >= 1000 ? String(y) : y >= 0 ? String(y).padStart(4, '0') : `-${String(-y).padStart(4, '0')}`);

/** `Y-m-d H:i:s`. */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${formatDate(ms)} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

/** `Y-m-d`. */
export function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${year4(d.getUTCFullYear())}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** Strict parse of `Y-m-d`, `Y-m-d H:i` or `Y-m-d H:i:s` (the caller picks which by `shape`); undefined when invalid. */
export function parseDateTime(text: string, shape: 'date' | 'minute' | 'second'): number | undefined {
  const m = DATE_TIME_RE.exec(text);
  if (!m) return undefined;
  const hasTime = m[4] !== undefined;
  const hasSeconds = m[6] !== undefined;
  if (shape === 'date' && hasTime) return undefined;
  if (shape === 'minute' && (!hasTime || hasSeconds)) return undefined;
  if (shape === 'second' && !hasSeconds) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (h > 23 || mi > 59 || s > 59) return undefined;
  // Not Date.UTC: it reads years 0-99 as 1900-1999.
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d);
  back.setUTCHours(h, mi, s, 0);
  const ms = back.getTime();
  // Rejects 2026-02-30 and the like, which Date.UTC silently rolls over.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return ms;
}

/** 23:59:59 of the day `ms` falls on, plus `days` days. */
export function endOfDay(ms: number, days = 0): number {
  return Math.floor(ms / DAY_MS) * DAY_MS + days * DAY_MS + DAY_MS - 1000;
}

/** Start of the day `ms` falls on. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}
