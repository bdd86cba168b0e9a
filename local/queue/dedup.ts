import type { QueueMessage } from '../../shared/queue/index.js';
import type { QueueState } from './state.js';

/**
 * SQS FIFO's deduplication window: whether this send is a copy of one within the window (then it is
 * counted and dropped by the caller), else the id is remembered from `now`.
 */
export function isDuplicateSend(q: QueueState, message: QueueMessage, now: number): boolean {
  const window = q.settings.dedupWindowMs;
  const seenAt = q.dedupSeen.get(message.deduplicationId);
  if (seenAt !== undefined && now - seenAt < window) {
    // SQS answers success and drops the copy: a retried send cannot create a second message.
    q.counters.deduplicated += 1;
    q.options.onDeduplicated?.(message);
    return true;
  }
  // Entries are in send order, so the expired ones are at the front (an expired id sent again
  // is among them: it is deleted here and set again at the back).
  for (const [id, at] of q.dedupSeen) {
    if (now - at < window) break;
    q.dedupSeen.delete(id);
  }
  q.dedupSeen.set(message.deduplicationId, now);
  return false;
}
