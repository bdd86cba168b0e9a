import { redrive } from './dead-letter.js';
import { isDuplicateSend } from './dedup.js';
import { MAX_BATCH_ENTRIES, type QueueMessage } from '../../shared/queue/index.js';
import { isLocalQueueError, LocalQueueError } from './errors.js';
import { enqueue } from './groups.js';
import { addTimer, closeQueue, schedulePump, wait, waitForIdle } from './pump.js';
import { createQueueState } from './state.js';
import { queueStats } from './stats.js';
import type { LocalQueue, LocalQueueOptions } from './types.js';
import { validateMessage } from './validate.js';
import { applyVisibilityChanges, nextVisibleAt } from './visibility.js';

export type { DeadLetter, LocalQueue, LocalQueueOptions, LocalQueueStats, QueueConsumer } from './types.js';

/**
 * An in-process SQS FIFO queue and its Lambda event source mapping: the delivery behaviour the worker
 * meets in AWS (at-least-once, ordered per message group, one group in flight at a time, visibility
 * timeout, partial batch failures, dead-letter after maxReceiveCount), not a direct function call.
 * This is its public face; the steps live beside it: group storage (groups.ts), receive selection
 * (selection.ts), delivery to the consumer (delivery.ts), visibility (visibility.ts), dead letters
 * (dead-letter.ts), deduplication (dedup.ts), counts (stats.ts) and the mapping's loop (pump.ts).
 */
export function createLocalQueue(options: LocalQueueOptions = {}): LocalQueue {
  const q = createQueueState(options);
  const accept = (message: QueueMessage) => {
    validateMessage(message);
    const now = q.settings.clock.now();
    q.counters.sent += 1;
    if (!isDuplicateSend(q, message, now)) enqueue(q, message, now);
  };
  return {
    async send(message) {
      if (q.closed) throw new LocalQueueError('closed', 'the queue is closed');
      accept(message);
      schedulePump(q);
    },
    // SendMessageBatch: at most 10 entries, each accepted or reported failed on its own (SQS's rules).
    async sendBatch(messages) {
      if (q.closed) throw new LocalQueueError('closed', 'the queue is closed');
      if (messages.length === 0 || messages.length > MAX_BATCH_ENTRIES) {
        throw new LocalQueueError('invalid_message', `a batch holds 1 to ${MAX_BATCH_ENTRIES} messages`);
      }
      q.counters.batchSends += 1;
      const failed = messages.flatMap((message, index) => {
        try {
          accept(message);
          return [];
        } catch (e) {
          if (!isLocalQueueError(e)) throw e;
          return [{ index, code: e.kind, senderFault: true }];
        }
      });
      schedulePump(q);
      return failed;
    },
    start(consumer) {
      q.consumer = consumer;
      schedulePump(q);
    },
    async pause() {
      q.paused = true;
    },
    async resume() {
      q.paused = false;
      schedulePump(q);
    },
    async isPaused() {
      return q.paused;
    },
    stats: () => queueStats(q),
    nextVisibleAt: () => nextVisibleAt(q),
    async changeVisibility(changes) {
      const unknown = applyVisibilityChanges(q, changes, (at) => addTimer(q, at));
      schedulePump(q);
      if (unknown > 0)
        throw new LocalQueueError('invalid_message', `${unknown} receipt handle(s) are not current (ReceiptHandleIsInvalid)`);
    },
    deadLetters: () => q.dead.map((d) => ({ ...d })),
    redrive(filter) {
      const moved = redrive(q, filter);
      schedulePump(q);
      return moved;
    },
    settled: () => wait(q, 'settled'),
    waitForIdle: (opts) => waitForIdle(q, opts?.timeoutMs),
    close: () => closeQueue(q),
  };
}
