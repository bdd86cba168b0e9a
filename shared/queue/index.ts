export type { EventQueue, QueueMessage } from './types.js';
export { createSqsQueue, QueueSendError, type SqsQueueOptions } from './sqs-queue.js';
