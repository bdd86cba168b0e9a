import type { EventQueue, QueueMessage } from '../../shared/queue/types.js';

/**
 * An in-memory EventQueue that records what intake sends. This is the queue boundary: SQS itself
 * cannot run here (shared/queue/sqs-queue.ts is tested against an SQS-speaking HTTP server).
 */
export class RecordingQueue implements EventQueue {
  readonly messages: QueueMessage[] = [];
  failWith: Error | undefined;

  async send(message: QueueMessage): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.messages.push(message);
  }

  /** The bodies, parsed (event bodies carry ids as strings, so JSON.parse is exact here). */
  events(): Record<string, unknown>[] {
    return this.messages.map((m) => JSON.parse(m.body) as Record<string, unknown>);
  }
}
