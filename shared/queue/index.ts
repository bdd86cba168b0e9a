/** The event queue: the FIFO group and deduplication rule of an event's message, sending canonical events to SQS FIFO, and pushing back a message's visibility while it waits. */
export { queueMessageFor } from './message.js';
export { createSqsQueue, QueueSendError, type SqsQueueOptions } from './sqs-queue.js';
export type { EventQueue, QueueMessage } from './types.js';
export { createSqsVisibility, type MessageVisibility, queueUrlOfArn, type VisibilityChange } from './visibility.js';
