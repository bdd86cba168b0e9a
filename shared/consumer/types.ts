import type { ActivityRecorder } from '../activity/index.js';
import type { ProcessingSettings } from '../config/index.js';
import type { Clock } from '../ledger/index.js';
import type * as logging from '../logging/index.js';
import type { InvocationBudget } from '../openapi/index.js';
import type { MetricsSink } from '../points/index.js';
import type { EventQueue, MessageVisibility } from '../queue/index.js';
import type { CircuitBreaker } from '../retry/index.js';
import type { OutagePause } from './pull.js';
import type { UpstreamProbe } from './recovery.js';

/** What the queue consumer needs around the processor (all passed in: tests give real local ones). */
export interface ConsumerDeps {
  settings: ProcessingSettings;
  clock: Clock;
  logger: logging.Logger;
  metrics: MetricsSink & { publishStoredMetrics(): void };
  breaker: CircuitBreaker;
  budget: InvocationBudget;
  /** Defers messages in place (ChangeMessageVisibility): SQS in AWS, the local queue under `npm start`. */
  visibility?: MessageVisibility;
  /** The queue it reads, to set waiting events aside (shared/queue/aside.ts); without it they wait in place. */
  queue?: EventQueue;
  /** Jitter source for deferrals (tests pass a fixed one). */
  random?: () => number;
  /** A pause of pulling under way (pull.ts): the batch waits for it before it returns. */
  outagePause?: Pick<OutagePause, 'flush'>;
  /**
   * The breaker's half-open trial (probe.ts: one read of an id nobody has, through the client the breaker
   * records): made before the event's own calls, so a fault of one request (a 500 on a grant) does not
   * keep the breaker open for everyone. Without it the event's own calls are the trial.
   */
  probe?: UpstreamProbe;
  /** The activity record: each receive's outcome filed under its order (best effort, never read to decide). */
  activity?: Pick<ActivityRecorder, 'received'>;
}
