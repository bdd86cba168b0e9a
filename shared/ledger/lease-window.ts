import { LEASE_MARGIN_SECONDS } from '../config/index.js';
import type { Clock } from './store.js';

/**
 * The send window (shared/openapi/send-window.ts) of a lease claimed at `claimedAt`, the clock reading
 * its `leaseUntil` was computed from. By default the clock now: made just before the claim, the window
 * ends no later than the lease the claim writes (its own reading comes after) less the margin.
 */
export function leaseSendWindow(clock: Clock, leaseMs: number, claimedAt = clock()): { leftMs(): number } {
  const closesAt = claimedAt + leaseMs - LEASE_MARGIN_SECONDS * 1000;
  return { leftMs: () => closesAt - clock() };
}
