/**
 * One container's slices of the shared budget (shared-budget.ts), as pure bookkeeping: how much to
 * lease next, what a lease leaves, a slot taken. Pure so that the year-end model (chaos/year-end/)
 * runs the very same policy on its simulated clock.
 *
 * A slice left at the minute's end is lost to every container (under-use, never over-use). With many
 * containers that loss was ~30 % of the budget above the bound (chaos/README.md, the year-end sale),
 * so near the minute's end a container leases no more than its own pace would spend by then: the
 * doubling size (20, 40, 50) while the minute is young, then the calls it took a millisecond this
 * minute times the milliseconds left, with a fifth more for an uneven pace, at least one.
 */

import { STOREFRONT_RESERVE_LENT_FROM_MS } from '../config/index.js';

export const MINUTE_MS = 60_000;

/**
 * When a caller refused at `now` may expect a slot, in ms from `now`: the start of the first minute
 * past those it could wait for (`maxWaitMs`), each of which the shared budget found spent.
 */
export function slotExpectedInMs(now: number, maxWaitMs: number): number {
  return (Math.floor((now + Math.max(0, maxWaitMs)) / MINUTE_MS) + 1) * MINUTE_MS - now;
}

/** Slices: the first lease of a minute is 20 calls (a quiet container wastes little), each next one doubles up to 50. */
export const FIRST_SLICE = 20;
export const MAX_SLICE = 50;
/** Calls taken in a minute before its pace is trusted to size a lease. */
export const PACE_MIN_CALLS = 5;
/** Headroom over the measured pace: a lease a little too big wastes less than a second lease costs. */
export const PACE_HEADROOM = 1.2;

/** One container's slice of one endpoint's minute. */
export interface Slice {
  left: number;
  /** Size of the next full lease in this minute; 0: the minute is spent for this class. */
  next: number;
  /** Calls taken from this minute's slices, and when the first was (the container's pace). */
  taken: number;
  firstAt: number | undefined;
  /** The class's cap under which the minute was found spent (`next` 0): a higher cap later (a lent reserve) reopens it. */
  spentAtCap?: number;
}

export function openSlice(): Slice {
  return { left: 0, next: FIRST_SLICE, taken: 0, firstAt: undefined };
}

/**
 * How long a caller that found the minute (starting `minuteStart`) spent for its class should wait for
 * the App Proxy's reserve to be lent (shared/config STOREFRONT_RESERVE_LENT_FROM_MS), when its cap then
 * (`capAtLend`) is higher than the one it found spent; undefined when there is nothing to wait for. It
 * waits without a slot: the lent part is not leased before the lend point, where the reserve is still
 * the storefront's.
 */
export function lendWaitMs(s: Slice, now: number, minuteStart: number, capAtLend: number): number | undefined {
  const at = minuteStart + STOREFRONT_RESERVE_LENT_FROM_MS;
  if (s.left > 0 || s.next > 0 || now >= at || s.spentAtCap === undefined || capAtLend <= s.spentAtCap) return undefined;
  return at - now;
}

/**
 * A minute found spent under one cap is open again once the cap is higher (the App Proxy's unused
 * reserve lent late in the minute: shared/config bulkCapAt): one more lease, sized by the pace.
 */
export function reopenIfLent(s: Slice, cap: number): void {
  if (s.next === 0 && s.spentAtCap !== undefined && cap > s.spentAtCap) {
    s.next = FIRST_SLICE;
    s.spentAtCap = undefined;
  }
}

/**
 * How many calls to lease at `now` for a minute ending at `minuteEnd`: the doubling size, or less
 * when the container's pace this minute would not spend it before the end.
 */
export function leaseWant(s: Slice, now: number, minuteEnd: number): number {
  if (s.firstAt === undefined || s.taken < PACE_MIN_CALLS || now <= s.firstAt) return s.next;
  const pace = s.taken / (now - s.firstAt);
  const need = Math.ceil(pace * Math.max(0, minuteEnd - now) * PACE_HEADROOM);
  return Math.max(1, Math.min(s.next, need));
}

/**
 * What a lease of `want` under `cap` that got `got` leaves: fewer than asked means the minute is spent
 * for this class, until its cap grows (reopenIfLent).
 */
export function afterLease(s: Slice, want: number, got: number, cap?: number): void {
  s.left += got;
  s.next = got < want ? 0 : Math.min(MAX_SLICE, s.next * 2);
  if (got < want) s.spentAtCap = cap;
}

/** Takes one call from the slice (the caller has checked `left > 0`). */
export function takeSlot(s: Slice, now: number): void {
  s.left -= 1;
  s.taken += 1;
  s.firstAt ??= now;
}
