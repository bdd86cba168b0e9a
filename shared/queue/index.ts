export type { EventQueue, QueueMessage } from './types.js';
