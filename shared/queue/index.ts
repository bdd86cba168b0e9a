export type { EventQueue, QueueMessage } from './types.js';
export { createSqsQueue, QueueSendError, type SqsQueueOptions } from './sqs-queue.js';
export { createSqsVisibility, queueUrlOfArn, VisibilityChangeError, type MessageVisibility, type VisibilityChange } from './visibility.js';
