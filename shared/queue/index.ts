/** The event queue: sending canonical events to SQS FIFO, and pushing back a message's visibility while it waits. */
export { ASIDE_ATTRIBUTES, type AsideState, asideMessage, asideStateOf } from './aside.js';
export { createSqsQueue } from './sqs-queue.js';
export type { EventQueue, QueueMessage } from './types.js';
export { createSqsVisibility, type MessageVisibility, queueUrlOfArn, type VisibilityChange } from './visibility.js';
