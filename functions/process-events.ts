import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { isRecoveryTick, type RECOVERY_TICK, type RecoveryResult } from '../shared/consumer/index.js';
import type { DueEarns } from '../shared/points/index.js';
import { createWorker, isEarnTick, type EARN_TICK, type Worker, workerDepsFromEnv } from '../shared/worker/index.js';

/**
 * process-events: SQS FIFO -> the worker (shared/worker: the points processor behind the queue consumer),
 * the scheduled recovery tick -> its probe, and the `days` ticker of provisional points -> what is due. Environment -> parts -> handler; the making is in shared/worker.
 */

// The names the local stack, the bench and the tests build the worker by.
export {
  RECOVERY_PROBE_INTERVAL_MS,
  workerDepsFromEnv as depsFromEnv,
  workerHandler as makeHandler,
  workerRecovery as makeRecovery,
  workerEarnDue as makeEarnDue,
  type WorkerDeps as ProcessEventsDeps,
  type WorkerLogger as ProcessEventsLogger,
  type WorkerOverrides as ProcessEventsOverrides,
} from '../shared/worker/index.js';
export type { BatchHandler as ProcessEventsHandler } from '../shared/consumer/index.js';

let worker: Worker | undefined;

/** The Lambda entry point: the worker is built from process.env on the first invocation, then kept. */
export const handler = async (
  event: SQSEvent | typeof RECOVERY_TICK | typeof EARN_TICK,
  context: Context,
): Promise<SQSBatchResponse | RecoveryResult | DueEarns> => {
  worker ??= createWorker(workerDepsFromEnv(process.env));
  if (isEarnTick(event)) return worker.earnDue();
  return isRecoveryTick(event) ? worker.recover(context) : worker.handle(event as SQSEvent, context);
};
