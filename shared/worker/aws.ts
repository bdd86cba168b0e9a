import { ENV } from '../config/index.js';
import { createEventSourceMappingSwitch } from '../consumer/index.js';
import { createSqsQueue, createSqsVisibility } from '../queue/index.js';
import { plannedPauseFromEnv, type LedgerTable } from './stores.js';
import type { WorkerDeps } from './types.js';

/** The queue around the worker in AWS: where waiting messages go, how they are deferred, how pulling stops. */

/**
 * In Lambda the worker defers waiting messages on the queue they came from (sqs:ChangeMessageVisibility);
 * elsewhere (tests, local) the caller passes its queue, or messages wait out the visibility timeout.
 */
export function visibilityFromEnv(env: NodeJS.ProcessEnv, overrides: Partial<WorkerDeps>): Partial<Pick<WorkerDeps, 'visibility'>> {
  return overrides.visibility || env.AWS_LAMBDA_FUNCTION_NAME ? { visibility: overrides.visibility ?? createSqsVisibility() } : {};
}

/** Waiting events are set aside on the queue they came from (sqs:SendMessage on it). */
export function queueFromEnv(env: NodeJS.ProcessEnv, overrides: Partial<WorkerDeps>): Partial<Pick<WorkerDeps, 'queue'>> {
  if (overrides.queue) return { queue: overrides.queue };
  const queueUrl = env[ENV.QUEUE_URL];
  return queueUrl ? { queue: createSqsQueue({ queueUrl }) } : {};
}

/** In Lambda, pulling is the function's event source mapping (paused while the Open API is down). */
export function pullFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<WorkerDeps>,
  ledgerTable: () => LedgerTable,
): Partial<Pick<WorkerDeps, 'pull' | 'plannedPause'>> {
  const planned = overrides.plannedPause ?? plannedPauseFromEnv(env, ledgerTable);
  const plannedPause = planned ? { plannedPause: planned } : {};
  if (overrides.pull) return { pull: overrides.pull, ...plannedPause };
  const parameterName = env[ENV.PULL_MAPPING_PARAMETER];
  return parameterName ? { pull: createEventSourceMappingSwitch({ parameterName }), ...plannedPause } : {};
}
