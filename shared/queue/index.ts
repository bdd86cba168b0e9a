/** The event queue: sending canonical events to SQS FIFO, and pushing back a message's visibility while it waits. */
export { createSqsQueue } from './sqs-queue.js';
export type { EventQueue, QueueMessage } from './types.js';
export { createSqsVisibility, type MessageVisibility, queueUrlOfArn, type VisibilityChange } from './visibility.js';
