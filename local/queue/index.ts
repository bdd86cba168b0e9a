export { createLocalQueue } from './fifo-queue.js';
export type { DeadLetter, LocalQueue, LocalQueueOptions, LocalQueueStats, QueueConsumer } from './fifo-queue.js';
export { createManualClock, systemClock } from './clock.js';
export type { ManualClock, QueueClock } from './clock.js';
export { LocalQueueError, isLocalQueueError } from './errors.js';
export type { LocalQueueErrorKind } from './errors.js';
export { MAX_BODY_BYTES } from './validate.js';
