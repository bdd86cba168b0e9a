/** The activity record: best-effort observations around the exactly-once core, for the operator console. */
export type { ActivityEntry, BreakerTransition, OrderActivity, RunSummary } from './entries.js';
export { activityFromEnv, activityOf } from './from-env.js';
export { MAX_ORDER_ENTRIES, orderActivityKey } from '../ledger/index.js';
export { type ActivityReader, createActivityReader } from './reader.js';
export { type ActivityRecorder, createActivityRecorder, type DeliveryObservation, type ReceiveObservation } from './recorder.js';
export { type ActivityStore, createActivityStore } from '../ledger/index.js';
export { type RunFound, recordedRun } from './runs.js';
export { watchBreaker, watchCalls } from './watch.js';
