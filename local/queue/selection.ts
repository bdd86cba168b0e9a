import { deadLetter } from './dead-letter.js';
import type { QueueState } from './state.js';
import type { StoredMessage } from './types.js';

/** One ReceiveMessage as SQS FIFO answers it: whole groups' heads, in order, never a blocked group. */
export function receiveBatch(q: QueueState, now: number): StoredMessage[] {
  const { batchSize, maxReceiveCount } = q.settings;
  const batch: StoredMessage[] = [];
  for (const [groupId, messages] of q.groups) {
    if (batch.length >= batchSize) break;
    // A group with a message in flight is blocked until that message is deleted or visible again.
    // Receipts are only ever held by a prefix of the group (batches take its head), so the head tells.
    if (messages[0]?.receipt !== undefined) continue;
    for (let head = messages[0]; head !== undefined && batch.length < batchSize; head = messages[0]) {
      // SQS moves a message to the DLQ on the receive after its maxReceiveCount-th.
      if (head.receiveCount >= maxReceiveCount) {
        messages.shift();
        deadLetter(q, head, now);
        continue;
      }
      // Take the group's consecutive messages; the next group starts after them.
      const take = messages.slice(0, batchSize - batch.length);
      batch.push(...take);
      break;
    }
    if (messages.length === 0) q.groups.delete(groupId);
  }
  return batch;
}
