import { createProcessor, type DueEarns } from '../points/index.js';
import { dueEarnMirror } from '../sources/smaregi/index.js';
import type { WorkerDeps } from './types.js';

/**
 * The `days` ticker of provisional points (issue 53): the scheduled event (EventBridge every minute in
 * AWS, the local ticker under `npm start`) on which the worker credits the orders whose day has come,
 * each once through the purchase protocol (shared/points/processor.ts, `creditDueEarns`); a till sale's
 * credit under `tillPoints: membership` is then mirrored to the till's record (shared/sources/smaregi/due-mirror.ts).
 */
export const EARN_TICK = { earn: 'due' } as const;

export const isEarnTick = (event: unknown): event is typeof EARN_TICK =>
  typeof event === 'object' && event !== null && (event as { earn?: unknown }).earn === EARN_TICK.earn;

export type WorkerEarnDue = () => Promise<DueEarns>;

/** Orders one tick credits at most: well within the worker's 30-s timeout; the next minute takes the rest. */
export const EARN_TICK_LIMIT = 25;

export function workerEarnDue(deps: WorkerDeps): WorkerEarnDue {
  const processor = createProcessor(deps);
  const mirror = deps.tillMirror && dueEarnMirror(deps.tillMirror, deps.ledger);
  return async () => {
    const tally = await processor.creditDueEarns(EARN_TICK_LIMIT, mirror);
    if (tally.due > 0) deps.logger.info('provisional points due', { ...tally });
    return tally;
  };
}
