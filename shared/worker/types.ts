import type { ActivityRecorder } from '../activity/index.js';
import type { ProcessingSettings } from '../config/index.js';
import type { PlannedPauseRecords, PullSwitch } from '../consumer/index.js';
import type { CustomerRecords, EnrolApi } from '../customers/index.js';
import type { Clock, Ledger, TillMirrors, TillReturns } from '../ledger/index.js';
import type * as logging from '../logging/index.js';
import type { CredentialsProvider, InvocationBudget } from '../openapi/index.js';
import type { Checkpoint, MetricsSink, PointsApi } from '../points/index.js';
import type { PrivacyDeps } from '../privacy/index.js';
import type { EventQueue, MessageVisibility } from '../queue/index.js';
import type { UsageDeps } from '../redemption/index.js';
import type { SenderResolvers } from '../sources/resolution.entry.js';
import type { TillMirrorDeps } from '../sources/smaregi/index.js';
import type { CircuitBreaker } from '../retry/index.js';
import type { LedgerTable } from './stores.js';

export type WorkerLogger = logging.Logger;

/** Everything the worker is made of (process-events builds it from the environment; tests and the local stack pass theirs). */
export type WorkerDeps = {
  ledger: Ledger;
  openapi: PointsApi;
  settings: ProcessingSettings;
  clock: Clock;
  logger: WorkerLogger;
  metrics: MetricsSink & { publishStoredMetrics(): void };
  checkpoint?: Checkpoint;
  /** The invocation's time left, shared with the Open API client built here (see shared/openapi/budget.ts). */
  budget?: InvocationBudget;
  /** Defers waiting messages (ChangeMessageVisibility): SQS in AWS, the local queue under `npm start`. */
  visibility?: MessageVisibility;
  /**
   * The queue the worker reads, to set a waiting message aside in a group of its own (shared/queue/aside.ts)
   * instead of holding its customer's group while it waits. Without it, waiting messages wait in place.
   */
  queue?: EventQueue;
  /** Pauses and resumes the worker's pulling (the event source mapping; the local queue under `npm start`). */
  pull?: PullSwitch;
  /** A planned pause (`npm run pause`): the recovery probe leaves pulling off until its end. */
  plannedPause?: PlannedPauseRecords;
  /** The container's circuit breaker (default: one per handler, i.e. per container). */
  breaker?: CircuitBreaker;
  /** Jitter source for deferrals (tests pass a fixed one). */
  random?: () => number;
  /** Each sender's API clients by kind (Square's Orders, Smaregi's Platform API): the thin events they resolve need them. */
  senders?: SenderResolvers['clients'];
  /** The activity record (best effort, never read to decide): each receive with its outcome and grant calls. */
  activity?: ActivityRecorder;
  /** Enrolling customers (the customer records, and the register call): customer events need it. */
  customers?: { records: CustomerRecords; openapi: EnrolApi };
  /** Redemptions (shared/redemption): orders using a code mark it used; refunds of such orders give points back. */
  redemption?: UsageDeps;
  /** A till's plain returns naming no sale, and what members' till sales held to match them (Smaregi: shared/ledger/till-returns.ts). */
  tillReturns?: TillReturns;
  /** Each points change mirrored to a till's point record, as a step of its own (Smaregi tillPoints membership: shared/ledger/till-mirrors.ts). */
  tillMirrors?: TillMirrors;
  /** The App Proxy's web legs mirrored to the tills (`till_mirror` messages): a Smaregi source under tillPoints membership and its access. */
  tillMirror?: TillMirrorDeps;
  /** Privacy requests (the ledger table's client, the quarantine): privacy events need it. */
  privacy?: Pick<PrivacyDeps, 'client' | 'tableName' | 'records' | 'quarantine' | 'requests'>;
};

/**
 * What a caller may give instead of what the environment would build: deps, the Open API credentials (the local
 * stack's store) and the ledger table's client (the bench counts at it).
 */
export type WorkerOverrides = Partial<WorkerDeps> & {
  credentials?: CredentialsProvider;
  documentClient?: LedgerTable['client'];
  /** The client's token scope: one per `npm start` worker, as one per container in Lambda (OpenApiClientOptions). */
  tokenScope?: string;
};
