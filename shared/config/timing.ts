import { ConfigurationError } from './errors.js';
/**
 * Every timing setting of processing, derived in ONE place for the CDK stack (infra/config) and for
 * `npm start` (kit/local-stack/config.ts, local/stack.ts), with the invariants between them checked here:
 * worker timeout -> lease -> visibility timeout; the poison backoff and maxReceiveCount -> how soon
 * poison reaches the DLQ -> the queue's retention. An event that is only waiting (lease held, refund
 * waiting for its purchase, upstream down) is set aside as a new message (shared/queue/aside.ts) with
 * the backoff until the retry horizon: waiting costs no receives, so maxReceiveCount counts failures.
 */

/**
 * The end of a lease its holder's state-changing requests keep clear of: no such request is sent, nor
 * waited for, past the lease's end less this margin (shared/openapi/send-window.ts), so clock skew and
 * a request the service is still finishing cannot outlive the lease.
 */
export const LEASE_MARGIN_SECONDS = 15;
/**
 * How long a lease's holder may send state-changing requests after it claims: one call's deadline
 * (10 s) and 5 s for the reads before it. The default lease is this and the margin (30 s). An attempt
 * slower than that (token renewals, 429 holds) sends nothing, releases and is retried; a crashed
 * attempt holds its work only this long, not a whole invocation (issue 44).
 */
export const LEASE_SEND_WINDOW_SECONDS = 15;
/** The least send window a configured lease may leave: one call's least time to start. */
export const MIN_LEASE_SEND_WINDOW_SECONDS = 5;
/** AWS: a queue's visibility timeout should be at least six times its Lambda consumer's timeout. */
export const VISIBILITY_TIMEOUT_FACTOR = 6;
/** Deferrals are jittered down by at most this share ("equal-ish" jitter: never below 80 %). */
export const BACKOFF_JITTER = 0.2;
/**
 * The circuit breaker's first period after it opens: the first probe goes after 5 s, and each failed
 * probe doubles the period up to circuitOpenSeconds (5, 10, 20, 30, 30... with the default). A fault of
 * a moment then holds the events for seconds; a service that stays down is still probed only once per
 * circuitOpenSeconds after the first few probes.
 */
export const CIRCUIT_FIRST_PROBE_SECONDS = 5;
/** SQS limits: visibility timeout (and ChangeMessageVisibility) at most 12 h; maxReceiveCount 1..1000. */
export const SQS_MAX_VISIBILITY_SECONDS = 43_200;
export const SQS_MAX_RECEIVE_COUNT = 1000;

/**
 * The in-doubt horizon's default: how long a request may live at the vendor after our client stopped
 * waiting for it. A load balancer keeps a request up to its idle timeout (AWS ALB 60 s, nginx's
 * proxy_read_timeout 60 s) while the backend behind it runs on, and a PHP-FPM pool queues it before
 * running it up to max_execution_time (30 s): 120 s covers a queued request that then runs to its end.
 */
export const DEFAULT_IN_DOUBT_SECONDS = 120;

export const TIMING_DEFAULTS = {
  workerTimeoutSeconds: 30,
  refundWaitSeconds: 120,
  backoffBaseSeconds: 2,
  /** 15 minutes: an outage's backlog is retried at most 15 min after the service is back. */
  backoffCapSeconds: 900,
  /** 24 hours of waiting before an event that still cannot proceed goes to the DLQ. */
  retryHorizonSeconds: 86_400,
  /** The source queue keeps a message 4 days (SQS default). */
  retentionSeconds: 4 * 86_400,
  /** Failed attempts (exceptions, invalid events, configuration errors) before a message goes to the DLQ. */
  poisonReceives: 5,
  /**
   * The longest the circuit breaker stays open before one probe goes through (per container): the
   * first probe goes sooner (CIRCUIT_FIRST_PROBE_SECONDS), each failed one doubles the wait up to this.
   */
  circuitOpenSeconds: 30,
} as const;

export interface TimingInputs {
  workerTimeoutSeconds?: number | undefined;
  leaseSeconds?: number | undefined;
  visibilityTimeoutSeconds?: number | undefined;
  maxReceiveCount?: number | undefined;
  refundWaitSeconds?: number | undefined;
  backoffBaseSeconds?: number | undefined;
  backoffCapSeconds?: number | undefined;
  retryHorizonSeconds?: number | undefined;
  retentionSeconds?: number | undefined;
  circuitOpenSeconds?: number | undefined;
  inDoubtSeconds?: number | undefined;
}

export type Timing = { [K in keyof TimingInputs]-?: number };

/** The minimum delay of the deferral after the `receive`-th receive (1-based): jittered backoff's floor. */
export function minimumDeferralSeconds(receive: number, t: Pick<Timing, 'backoffBaseSeconds' | 'backoffCapSeconds'>): number {
  return (1 - BACKOFF_JITTER) * nominalBackoffSeconds(receive, t);
}

function nominalBackoffSeconds(receive: number, t: Pick<Timing, 'backoffBaseSeconds' | 'backoffCapSeconds'>): number {
  const exponent = Math.min(Math.max(receive, 1) - 1, 40);
  return Math.min(t.backoffCapSeconds, t.backoffBaseSeconds * 2 ** exponent);
}

/**
 * The deferral after the `receive`-th receive: base x 2^(receive-1), capped, jittered into
 * [80 %, 100 %] of that (so containers retrying together spread out), at least `atLeast` (a lease's end).
 */
export function deferralSeconds(
  receive: number,
  t: Pick<Timing, 'backoffBaseSeconds' | 'backoffCapSeconds'>,
  random: () => number = Math.random,
  atLeast = 0,
): number {
  const nominal = nominalBackoffSeconds(receive, t);
  const jittered = nominal * (1 - BACKOFF_JITTER * random());
  return Math.min(SQS_MAX_VISIBILITY_SECONDS, Math.max(1, Math.ceil(Math.max(jittered, atLeast))));
}

/** A failing message is retried after 5 s, 10 s, 20 s...: poison reaches the DLQ within minutes. */
export const POISON_BACKOFF_BASE_SECONDS = 5;

/** The in-place deferral after the `receive`-th failed receive (1-based). */
export function poisonDeferralSeconds(receive: number): number {
  // At most 5 x 2^7 = 640 s: a receive count raised by hand still retries within the quarter hour.
  const exponent = Math.min(Math.max(receive, 1) - 1, 7);
  return POISON_BACKOFF_BASE_SECONDS * 2 ** exponent;
}

/** Seconds from a message's first failure until the DLQ takes it (every receive fails). */
export function poisonToDeadLetterSeconds(maxReceiveCount: number): number {
  let total = 0;
  for (let receive = 1; receive <= maxReceiveCount; receive += 1) total += poisonDeferralSeconds(receive);
  return total;
}

/** Upper bound on the receives a waiting event takes within the horizon (each deferral waits at least its floor). */
export function receivesWithinHorizon(t: Pick<Timing, 'backoffBaseSeconds' | 'backoffCapSeconds' | 'retryHorizonSeconds'>): number {
  let waited = 0;
  let receives = 0;
  while (waited < t.retryHorizonSeconds) {
    receives += 1;
    waited += minimumDeferralSeconds(receives, t);
  }
  // The receive that finds the horizon passed.
  return receives + 1;
}

/** Fills in every setting: configured values win, the rest is derived from them and the defaults. */
export function deriveTiming(inputs: TimingInputs = {}): Timing {
  const workerTimeoutSeconds = inputs.workerTimeoutSeconds ?? TIMING_DEFAULTS.workerTimeoutSeconds;
  const leaseSeconds = inputs.leaseSeconds ?? LEASE_SEND_WINDOW_SECONDS + LEASE_MARGIN_SECONDS;
  const backoff = {
    backoffBaseSeconds: inputs.backoffBaseSeconds ?? TIMING_DEFAULTS.backoffBaseSeconds,
    backoffCapSeconds: inputs.backoffCapSeconds ?? TIMING_DEFAULTS.backoffCapSeconds,
    retryHorizonSeconds: inputs.retryHorizonSeconds ?? TIMING_DEFAULTS.retryHorizonSeconds,
  };
  return {
    workerTimeoutSeconds,
    leaseSeconds,
    visibilityTimeoutSeconds: inputs.visibilityTimeoutSeconds ?? VISIBILITY_TIMEOUT_FACTOR * workerTimeoutSeconds,
    // The failed attempts, plus the receive of a set-aside copy that only defers itself to its wake time.
    maxReceiveCount: inputs.maxReceiveCount ?? TIMING_DEFAULTS.poisonReceives + 1,
    refundWaitSeconds: inputs.refundWaitSeconds ?? TIMING_DEFAULTS.refundWaitSeconds,
    ...backoff,
    retentionSeconds: inputs.retentionSeconds ?? TIMING_DEFAULTS.retentionSeconds,
    circuitOpenSeconds: inputs.circuitOpenSeconds ?? TIMING_DEFAULTS.circuitOpenSeconds,
    inDoubtSeconds: inputs.inDoubtSeconds ?? DEFAULT_IN_DOUBT_SECONDS,
  };
}

export interface TimingProblem {
  /** The setting to change. */
  field: keyof Timing;
  message: string;
}

/** Every invariant between the settings; an empty list means the combination is safe. */
export function timingProblems(t: Timing): TimingProblem[] {
  const problems: TimingProblem[] = [];
  const check = (ok: boolean, field: keyof Timing, message: string) => {
    if (!ok) problems.push({ field, message });
  };
  for (const [field, value] of Object.entries(t) as [keyof Timing, number][]) {
    check(Number.isInteger(value) && value > 0, field, `${field} must be a positive integer, got ${value}`);
  }
  if (problems.length > 0) return problems;
  // A takeover searches the history for a lost call's marker: every state-changing call of the holder
  // ends its lease's margin before the lease does (the send window), so the lease must leave a window.
  check(
    t.leaseSeconds >= LEASE_MARGIN_SECONDS + MIN_LEASE_SEND_WINDOW_SECONDS,
    'leaseSeconds',
    `the lease (${t.leaseSeconds} s) must be >= ${LEASE_MARGIN_SECONDS + MIN_LEASE_SEND_WINDOW_SECONDS} s: its last ${LEASE_MARGIN_SECONDS} s are kept clear of calls, and at least ${MIN_LEASE_SEND_WINDOW_SECONDS} s must be left to send one`,
  );
  // A call whose ending proved nothing is not sent again before the horizon: one shorter than the
  // margin would let a taker of the lease send while the holder's own request may still be landing.
  check(
    t.inDoubtSeconds >= LEASE_MARGIN_SECONDS,
    'inDoubtSeconds',
    `the in-doubt horizon (${t.inDoubtSeconds} s) must be >= the lease's margin (${LEASE_MARGIN_SECONDS} s): a request in doubt is not sent again before it`,
  );
  // A crashed attempt's message comes back after the visibility timeout: by then its lease is over.
  check(
    t.visibilityTimeoutSeconds >= t.leaseSeconds,
    'visibilityTimeoutSeconds',
    `the visibility timeout (${t.visibilityTimeoutSeconds} s) must be >= the lease (${t.leaseSeconds} s), or a crashed attempt's redelivery meets its live lease`,
  );
  check(
    t.visibilityTimeoutSeconds <= SQS_MAX_VISIBILITY_SECONDS,
    'visibilityTimeoutSeconds',
    `the visibility timeout must be <= ${SQS_MAX_VISIBILITY_SECONDS} s (SQS)`,
  );
  check(t.backoffCapSeconds >= t.backoffBaseSeconds, 'backoffCapSeconds', 'the backoff cap must be >= its base');
  check(
    t.backoffCapSeconds <= SQS_MAX_VISIBILITY_SECONDS,
    'backoffCapSeconds',
    `the backoff cap must be <= ${SQS_MAX_VISIBILITY_SECONDS} s (SQS's longest visibility)`,
  );
  check(
    t.refundWaitSeconds <= t.retryHorizonSeconds,
    'refundWaitSeconds',
    `the refund wait (${t.refundWaitSeconds} s) must be <= the retry horizon (${t.retryHorizonSeconds} s), or a waiting refund is dead-lettered instead of parked`,
  );
  check(t.circuitOpenSeconds <= t.backoffCapSeconds, 'circuitOpenSeconds', 'the circuit breaker must probe at least once per backoff cap');
  check(
    t.maxReceiveCount >= 2,
    'maxReceiveCount',
    `maxReceiveCount (${t.maxReceiveCount}) must be >= 2: a set-aside copy takes one receive to defer itself, one to run`,
  );
  check(t.maxReceiveCount <= SQS_MAX_RECEIVE_COUNT, 'maxReceiveCount', `maxReceiveCount must be <= ${SQS_MAX_RECEIVE_COUNT} (SQS)`);
  // After the horizon the event fails as poison: it must reach the DLQ before the queue's retention deletes it.
  const latestDeadLetter = t.retryHorizonSeconds + t.backoffCapSeconds + poisonToDeadLetterSeconds(t.maxReceiveCount);
  check(
    latestDeadLetter < t.retentionSeconds,
    'retryHorizonSeconds',
    `horizon + backoff cap + the poison retries (${latestDeadLetter} s) must be < the queue's retention (${t.retentionSeconds} s), or an event could expire instead of reaching the DLQ`,
  );
  return problems;
}

/**
 * deriveTiming, then the invariants: a ConfigurationError (invalid_timing) naming every broken one.
 * `wording` lets a caller say it in its own words (the local stack names the environment variable to change),
 * so nothing catches this error to re-word it.
 */
export function checkedTiming(inputs: TimingInputs = {}, wording?: { kind: string; setting: (field: keyof Timing) => string }): Timing {
  const timing = deriveTiming(inputs);
  const problems = timingProblems(timing);
  if (problems.length > 0 && wording) {
    throw new ConfigurationError(wording.kind, problems.map((p) => `${wording.setting(p.field)}: ${p.message}`).join('; '));
  }
  if (problems.length > 0) {
    throw new ConfigurationError('invalid_timing', `invalid timing settings: ${problems.map((p) => p.message).join('; ')}`);
  }
  return timing;
}
