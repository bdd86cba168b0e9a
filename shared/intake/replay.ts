import type { PointsEvent } from '../events/index.js';

const DAY_MS = 86_400_000;

/**
 * Why an event is too old to act on, or undefined. Shopify signs no timestamp, so a captured
 * delivery can be replayed at will; the ledger refuses a replay only while it remembers the order.
 * Past the window the event earns and takes nothing: answered 200 `ignored` so the sender stops.
 */
export function tooOldReason(event: PointsEvent, nowMs: number, windowDays: number): string | undefined {
  const at = Date.parse(event.occurredAt);
  if (Number.isNaN(at) || at >= nowMs - windowDays * DAY_MS) return undefined;
  return `too_old: occurred ${new Date(at).toISOString()}, more than ${windowDays} days ago (the replay window)`;
}
