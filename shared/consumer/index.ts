/** The queue consumer: SQS batches to the points processor; waiting set aside, failing deferred towards the DLQ. */
export { type BatchHandler, batchHandler } from './batch.js';
export { CircuitOpen, NotYet, RetryLater } from './errors.js';
export type { ConsumerDeps } from './types.js';
