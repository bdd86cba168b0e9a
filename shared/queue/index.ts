/** The event queue: the FIFO group and deduplication rule of an event's message, sending canonical events to SQS FIFO, setting a waiting event aside, and pushing back a message's visibility while it waits. */
export { ASIDE_ATTRIBUTES, type AsideState, asideMessage, asideStateOf } from './aside.js';
export { messageGroupId, queueMessageFor, tillMirrorMessage } from './message.js';
export { QueueError, QueueSendError } from './errors.js';
export { createSqsQueue, type SqsQueueOptions } from './sqs-queue.js';
export { batchesOf, MAX_BATCH_BYTES, MAX_BATCH_ENTRIES, type SendAllOptions, sendAll } from './send-all.js';
export type { BatchEntryFailure, EventQueue, QueueMessage } from './types.js';
export { createSqsVisibility, type MessageVisibility, queueUrlOfArn, type VisibilityChange } from './visibility.js';
