import { deferralSeconds, SQS_MAX_VISIBILITY_SECONDS } from '../config/index.js';
import type { ProcessOutcome } from '../events/index.js';

/**
 * Waiting is not failing. Outcomes that only say "not yet" are deferred (the message waits a backoff,
 * or for the lease's end) until the retry horizon; everything else fails as it is and spends the
 * dead-letter budget: invalid events, configuration errors, bugs.
 */
const WAITING_KINDS: ReadonlySet<ProcessOutcome['kind']> = new Set([
  'lease_held',
  'refund_waiting',
  'outcome_unknown',
  'upstream_error',
  'lease_lost',
  'redaction_continues',
]);

export interface DeferralSettings {
  backoffBaseSeconds: number;
  backoffCapSeconds: number;
  retryHorizonSeconds: number;
  leaseSeconds: number;
}

export type Verdict = { defer: true; seconds: number } | { defer: false; why: 'not_waiting' | 'horizon_passed' };

/** What a retry waits for: the outcome's own kind, or (its event done) the follow-up still pending. */
export type WaitReason = Pick<ProcessOutcome, 'kind'> & {
  /** upstream_error: the failed call's error kind (budget_spent: a refusal of the shared budget, a wait). */
  errorKind?: string;
  leaseKept?: boolean;
  /** upstream_error of a rate limit: its Retry-After. */
  retryAfterSeconds?: number;
  /** lease_held: when the holder's lease ends; refund_waiting: when the refund is parked; outcome_unknown: the in-doubt horizon (epoch ms). */
  until?: number;
  followUps?: { kind: string; action: string }[];
  /** A customer event (linked, enrolled): the first earlier purchase still to credit, and when its wait ends. */
  earlier?: { pendingKind?: string; pendingUntil?: number };
};

/**
 * The kind that decides a retry's wait: a done event retried for a follow-up waits as that follow-up
 * does; a customer event retried for an earlier purchase still to credit waits as that purchase does.
 */
export function retryReason(outcome: WaitReason | 'circuit_open'): ProcessOutcome['kind'] | 'circuit_open' {
  if (outcome === 'circuit_open' || WAITING_KINDS.has(outcome.kind)) return outcome === 'circuit_open' ? outcome : outcome.kind;
  const pending = outcome.followUps?.find((f) => f.action === 'retry' && WAITING_KINDS.has(f.kind as ProcessOutcome['kind']));
  const earlier = outcome.earlier?.pendingKind as ProcessOutcome['kind'] | undefined;
  return (pending?.kind as ProcessOutcome['kind'] | undefined) ?? (earlier && WAITING_KINDS.has(earlier) ? earlier : outcome.kind);
}

/** A call the shared upstream budget had no slot for in time (shared/openapi, `budget_spent`). */
export const isBudgetRefusal = (outcome: WaitReason | 'circuit_open'): boolean =>
  outcome !== 'circuit_open' && outcome.kind === 'upstream_error' && outcome.errorKind === 'budget_spent';

/**
 * The put-back of a call the budget refused: to the minute a slot is expected in (`retryAfterSeconds`,
 * that minute's start), at a point drawn across it. All at the minute's start, the refused calls of
 * every container came back together, spent the minute in its first seconds and were refused again;
 * spread across it, they come back at about the pace the budget allows. The year-end model
 * (chaos/year-end/) defers its refusals with this very function.
 */
export function budgetDeferralSeconds(retryAfterSeconds: number, random: () => number = Math.random): number {
  const spread = Math.floor(random() * 60);
  return Math.min(SQS_MAX_VISIBILITY_SECONDS, Math.max(1, Math.ceil(retryAfterSeconds) + spread));
}

/**
 * What to do with a message that cannot proceed. `receive` is how many times it waited so far (the
 * backoff's exponent), `ageMs` how long ago it was first sent, `nowMs` the clock (for a lease's end);
 * `atLeastSeconds` a floor (the open breaker's remaining time).
 */
export function deferralFor(
  outcome: WaitReason | 'circuit_open',
  message: { receive: number; ageMs: number; nowMs?: number },
  settings: DeferralSettings,
  random: () => number = Math.random,
  atLeastSeconds = 0,
): Verdict {
  const kind = retryReason(outcome);
  if (kind !== 'circuit_open' && !WAITING_KINDS.has(kind)) return { defer: false, why: 'not_waiting' };
  if (message.ageMs >= settings.retryHorizonSeconds * 1000) return { defer: false, why: 'horizon_passed' };
  // The budget refused it: nothing failed, so no backoff; it waits for the minute a slot is expected in.
  if (outcome !== 'circuit_open' && isBudgetRefusal(outcome)) {
    return { defer: true, seconds: budgetDeferralSeconds(outcome.retryAfterSeconds ?? 0, random) };
  }
  // An unknown outcome whose request may still land keeps the lease: the next attempt can only
  // reconcile once it has run out. One that cannot land released it: a backoff is enough.
  const leaseKept = outcome !== 'circuit_open' && outcome.kind === 'outcome_unknown' && outcome.leaseKept !== false;
  // A rate limit's Retry-After: no sooner than it asked.
  const retryAfter = outcome !== 'circuit_open' && outcome.kind === 'upstream_error' ? (outcome.retryAfterSeconds ?? 0) : 0;
  // An operation in doubt is not sent again before its horizon: waking sooner only searches in vain.
  const horizon =
    outcome !== 'circuit_open' && outcome.kind === 'outcome_unknown' && outcome.until !== undefined && message.nowMs !== undefined
      ? Math.ceil((outcome.until - message.nowMs) / 1000)
      : 0;
  const floor = Math.max(atLeastSeconds, retryAfter, horizon, leaseKept ? settings.leaseSeconds : 0);
  const seconds = deferralSeconds(message.receive, settings, random, floor);
  // A lease held by another attempt: its holder is most likely alive and about to finish (the backoff),
  // but no wait need outlast the lease itself (a crashed holder's lease is then taken over). A refund
  // waiting for its purchase: no wait need outlast the moment it is parked.
  const until = outcome !== 'circuit_open' && (kind === 'lease_held' || kind === 'refund_waiting') ? untilOf(outcome, kind) : undefined;
  if (until !== undefined && message.nowMs !== undefined) {
    const paced = kind === 'lease_held' ? Math.min(seconds, leasePace(until, message.nowMs, settings, random)) : seconds;
    return { defer: true, seconds: Math.max(1, Math.min(paced, Math.ceil((until - message.nowMs) / 1000) + 1)) };
  }
  return { defer: true, seconds };
}

/**
 * A lease met: wait about as long as it has been held (at least the backoff's first step). The count of
 * earlier waits says nothing about this lease: a refund that lost its order to sibling refunds a few
 * times in a row meets a lease taken a moment ago by a live attempt that finishes within seconds, and
 * must not sleep a whole lease for it. A lease held long already is more likely a crashed attempt's: its
 * end (the cap above) comes soon anyway. Leases are taken for `leaseSeconds` (shared/ledger), so
 * `until` tells when it was taken.
 */
function leasePace(until: number, nowMs: number, settings: DeferralSettings, random: () => number): number {
  const heldSeconds = Math.max(0, nowMs - (until - settings.leaseSeconds * 1000)) / 1000;
  return deferralSeconds(1, settings, random, heldSeconds);
}

/** The moment a lease_held or refund_waiting wait ends: the outcome's own, or its pending earlier purchase's. */
function untilOf(outcome: WaitReason, kind: 'lease_held' | 'refund_waiting'): number | undefined {
  return outcome.kind === kind ? outcome.until : outcome.earlier?.pendingKind === kind ? outcome.earlier.pendingUntil : undefined;
}
