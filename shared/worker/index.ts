/**
 * The worker (process-events), made here: its parts from the environment (or the caller's), the batch
 * handler around the points processor, and the recovery probe. functions/process-events.ts only reads
 * the environment and hands events over.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { BatchHandler } from '../consumer/index.js';
import { workerHandler } from './handler.js';
import { type WorkerRecovery, workerRecovery } from './recovery.js';
import { type WorkerEarnDue, workerEarnDue } from './earn-due.js';
import type { WorkerDeps } from './types.js';

export { workerDepsFromEnv } from './from-env.js';
export { workerHandler } from './handler.js';
export { RECOVERY_PROBE_INTERVAL_MS, type WorkerRecovery, workerRecovery } from './recovery.js';
export { EARN_TICK, isEarnTick, type WorkerEarnDue, workerEarnDue } from './earn-due.js';
export type { WorkerDeps, WorkerLogger, WorkerOverrides } from './types.js';

export interface Worker {
  /** One SQS batch (partial batch response). */
  handle(event: SQSEvent, context?: Context): Promise<SQSBatchResponse>;
  /** The scheduled recovery probe (resumes pulling paused by an outage). */
  recover: WorkerRecovery;
  /** The scheduled `days` ticker: credits the provisional points whose day has come. */
  earnDue: WorkerEarnDue;
}

/** The worker of `deps`; its handler is built on the first batch (a recovery tick needs only the probe). */
export function createWorker(deps: WorkerDeps): Worker {
  let handle: BatchHandler | undefined;
  let recover: WorkerRecovery | undefined;
  let earnDue: WorkerEarnDue | undefined;
  return {
    handle: (event, context) => {
      handle ??= workerHandler(deps);
      return handle(event, context);
    },
    recover: (context) => {
      recover ??= workerRecovery(deps);
      return recover(context);
    },
    earnDue: () => {
      earnDue ??= workerEarnDue(deps);
      return earnDue();
    },
  };
}
