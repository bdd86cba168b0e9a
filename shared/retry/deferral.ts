import { deferralSeconds } from '../config/index.js';
import type { ProcessOutcome } from '../events/index.js';

/**
 * Waiting is not failing. Outcomes that only say "not yet" are deferred (the message's visibility is
 * set to a backoff, or to the lease's end) until the retry horizon; everything else fails as it is and
 * spends the dead-letter budget: invalid events, configuration errors, bugs.
 */
const WAITING_KINDS: ReadonlySet<ProcessOutcome['kind']> = new Set([
  'lease_held',
  'refund_waiting',
  'outcome_unknown',
  'upstream_error',
  'lease_lost',
]);

export interface DeferralSettings {
  backoffBaseSeconds: number;
  backoffCapSeconds: number;
  retryHorizonSeconds: number;
  leaseSeconds: number;
}

export type Verdict = { defer: true; seconds: number } | { defer: false; why: 'not_waiting' | 'horizon_passed' };

/**
 * What to do with a message that cannot proceed. `receive` is its ApproximateReceiveCount, `ageMs`
 * how long ago it was sent; `atLeastSeconds` a floor (the open breaker's remaining time).
 */
export function deferralFor(
  kind: ProcessOutcome['kind'] | 'circuit_open',
  message: { receive: number; ageMs: number },
  settings: DeferralSettings,
  random: () => number = Math.random,
  atLeastSeconds = 0,
): Verdict {
  if (kind !== 'circuit_open' && !WAITING_KINDS.has(kind)) return { defer: false, why: 'not_waiting' };
  if (message.ageMs >= settings.retryHorizonSeconds * 1000) return { defer: false, why: 'horizon_passed' };
  // An unknown outcome keeps the lease: the next attempt can only reconcile once it has run out.
  const floor = Math.max(atLeastSeconds, kind === 'outcome_unknown' ? settings.leaseSeconds : 0);
  return { defer: true, seconds: deferralSeconds(message.receive, settings, random, floor) };
}
