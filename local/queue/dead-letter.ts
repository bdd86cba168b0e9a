import { enqueue } from './groups.js';
import type { QueueState } from './state.js';
import type { DeadLetter, StoredMessage } from './types.js';

/** The redrive policy's dead-letter list: moving a message there, and back (a redrive). */

export function deadLetter(q: QueueState, m: StoredMessage, now: number): void {
  const letter: DeadLetter = {
    messageId: m.messageId,
    body: m.body,
    groupId: m.groupId,
    deduplicationId: m.deduplicationId,
    receiveCount: m.receiveCount,
    sentAt: m.sentAt,
    deadLetteredAt: now,
    lastError: m.lastError,
  };
  q.dead.push(letter);
  q.options.onDeadLetter?.(letter);
}

/** Moves the matching dead letters back to the queue with a fresh receive count; returns how many. */
export function redrive(q: QueueState, filter: ((message: DeadLetter) => boolean) | undefined): number {
  const now = q.settings.clock.now();
  const moved = q.dead.filter((d) => filter === undefined || filter(d));
  for (const d of moved) {
    q.dead.splice(q.dead.indexOf(d), 1);
    // Moved back as a new message: deduplication does not apply to a redrive.
    enqueue(q, { body: d.body, groupId: d.groupId, deduplicationId: d.deduplicationId }, now);
  }
  return moved.length;
}
