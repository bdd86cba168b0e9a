/** The year-end model's options, defaults, counts and result (simulate.ts runs it). */
import { DEFAULT_UPSTREAM_BUDGET_PER_MINUTE, deriveTiming, workerConcurrency } from '../../shared/config/index.js';
import { YEAR_END_LATENCY, type LatencyModel } from './latency.js';
import { type KindName, type Mix, YEAR_END_MIX } from './mix.js';

export interface YearEndOptions {
  ratePerSecond: number;
  minutes: number;
  containers: number;
  /** The deployment's upstream budget per endpoint per minute (UPSTREAM_BUDGET_PER_MINUTE). */
  budgetPerMinute: number;
  mix: Mix;
  seed: number;
  /** Chance that an attempt meets an armed upstream fault (the chaos run's `--fault-rate`, default 0.25). */
  faultRate: number;
  /** Chance that an attempt crashes the worker before it ends (the chaos run's `--crash-rate`, 0.03). */
  crashRate: number;
  latency: LatencyModel;
  tills: number;
  webCustomers: number;
  batchSize: number;
  clientTimeoutMs: number;
  /** The worker's timeout (production: 30 s); a call that cannot wait for its slot within it is deferred. */
  invocationMs: number;
  /** The queue's visibility timeout (6 × the worker's timeout, as AWS asks). */
  visibilityMs: number;
  /**
   * A claim's lease. The worker sets its batch to come back its invocation's time left plus this
   * (shared/consumer/batch.ts): a crashed attempt's message is invisible until then, not visibilityMs.
   */
  leaseMs: number;
  maxReceiveCount: number;
  /** How long after the last arrival the run waits for the queue to empty before it counts the rest unfinished. */
  drainLimitMs: number;
}

export const YEAR_END_DEFAULTS: YearEndOptions = {
  ratePerSecond: 30,
  minutes: 120,
  // As the stack derives it from the default budget and latency (shared/config/throughput.ts).
  containers: workerConcurrency(DEFAULT_UPSTREAM_BUDGET_PER_MINUTE),
  budgetPerMinute: DEFAULT_UPSTREAM_BUDGET_PER_MINUTE,
  mix: YEAR_END_MIX,
  seed: 1,
  faultRate: 0.25,
  crashRate: 0.03,
  latency: YEAR_END_LATENCY,
  tills: 1_000,
  webCustomers: 200_000,
  batchSize: 10,
  clientTimeoutMs: 5_000,
  invocationMs: 30_000,
  visibilityMs: 180_000,
  leaseMs: deriveTiming().leaseSeconds * 1000,
  maxReceiveCount: 10,
  drainLimitMs: 24 * 3_600_000,
};

/** In-process time of one message besides its calls: a ledger write costs 10 ms, the handler's own work ~5 ms. */
export const LEDGER_WRITE_MS = 10;
export const HANDLER_CPU_MS = 5;
/** A token lives an hour; the client renews it 5 minutes early. */
export const TOKEN_RENEW_MS = 55 * 60_000;
/** The client's backoff before it sends a failed read again. */
export const READ_RETRY_MS = 200;
/** SQS long poll: an idle poller sends one receive every 20 s. */
export const LONG_POLL_MS = 20_000;
/** Receiver: handler time plus one SQS SendMessage round trip (bench/cost.ts's figures). */
export const RECEIVER_MS = 17;

export interface Receipt {
  kind: KindName;
  group: string;
  arrivedAt: number;
  doneAt?: number;
  /** Steps of its calls done (persisted on the record: a retry starts after them, the member id kept). */
  step: number;
  /** Per state-changing step, how many times it landed upstream (exactly once is right). */
  landed: number[];
  receives: number;
  deadLettered?: boolean;
  /** Refused by the budget at least once: set aside as a copy in a group of its own (out of its group's order by design). */
  setAside?: boolean;
}

export interface Usage {
  apiGatewayRequests: number;
  receiverInvocations: number;
  workerInvocations: number;
  appProxyInvocations: number;
  receiverMs: number;
  workerMs: number;
  appProxyMs: number;
  sqsSends: number;
  sqsReceives: number;
  sqsEmptyReceives: number;
  sqsDeletes: number;
  sqsVisibilityChanges: number;
  /** Calls the budget refused: each message set aside to the minute a slot is expected in. */
  budgetDeferrals: number;
  ledgerWrites: number;
  ledgerReads: number;
  budgetLeases: number;
  /** Messages the workers handled (attempts), and the App Proxy's requests: what the log lines follow. */
  workerAttempts: number;
}

export interface YearEndResult {
  options: YearEndOptions;
  receipts: number;
  arrivalPerSecond: number;
  throughputPerSecond: number;
  /** Per endpoint, the most calls it took in one simulated minute over every container and caller. */
  maxCallsPerMinute: Map<string, number>;
  oldestSeconds: number;
  drainedSeconds: number;
  mismatches: number;
  unfinished: number;
  deadLettered: number;
  /** Backlog when arrivals ended: queued and not yet done. */
  backlogAtEnd: number;
  /** Queued receipts done before an earlier one of their FIFO group (order within a group must hold: 0). */
  outOfOrder: number;
  /** Per endpoint, the mean calls a minute over the second half of the arrivals (the peak). */
  meanCallsPerMinuteInPeak: Map<string, number>;
  usage: Usage;
}

export function emptyUsage(): Usage {
  return {
    apiGatewayRequests: 0,
    receiverInvocations: 0,
    workerInvocations: 0,
    appProxyInvocations: 0,
    receiverMs: 0,
    workerMs: 0,
    appProxyMs: 0,
    sqsSends: 0,
    sqsReceives: 0,
    sqsEmptyReceives: 0,
    sqsDeletes: 0,
    sqsVisibilityChanges: 0,
    budgetDeferrals: 0,
    ledgerWrites: 0,
    ledgerReads: 0,
    budgetLeases: 0,
    workerAttempts: 0,
  };
}
