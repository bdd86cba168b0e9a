import type { QueuedEvent } from '../events/index.js';
import { DAY_MS } from '../time/index.js';

/**
 * Why an event is too old to act on, or undefined. Shopify signs no timestamp, so a captured
 * delivery can be replayed at will; the ledger refuses a replay only while it remembers the order.
 * Past the window the event earns and takes nothing: answered 200 `ignored` so the sender stops.
 */
export function tooOldReason(event: QueuedEvent, nowMs: number, windowDays: number): string | undefined {
  // A privacy request is always acted on: doing one twice removes or reports nothing more.
  if (event.type === 'privacy' || event.occurredAt === undefined) return undefined;
  const at = Date.parse(event.occurredAt);
  if (Number.isNaN(at) || at >= nowMs - windowDays * DAY_MS) return undefined;
  return `too_old: occurred ${new Date(at).toISOString()}, more than ${windowDays} days ago (the replay window)`;
}

/** How far ahead of our clock an event may be dated: senders' clocks and time zones, with room to spare. */
export const MAX_FUTURE_MS = DAY_MS;

/**
 * Why an event dated too far ahead is refused, or undefined. Its replay window would never close (an
 * event dated 2099 stays "recent" for 70 years); no sender's clock is a day fast. Answered as content
 * intake cannot read: Shopify's is quarantined (kept, alarmed, replayable), other senders see a 422.
 */
export function fromFutureProblem(event: QueuedEvent, nowMs: number): { path: string; message: string } | undefined {
  if (event.occurredAt === undefined) return undefined;
  const at = Date.parse(event.occurredAt);
  if (Number.isNaN(at) || at <= nowMs + MAX_FUTURE_MS) return undefined;
  return {
    path: 'event.occurredAt',
    message: `event.occurredAt: ${new Date(at).toISOString()} is more than a day ahead of the clock (${new Date(nowMs).toISOString()})`,
  };
}
