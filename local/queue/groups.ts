import { randomUUID } from 'node:crypto';
import type { QueueMessage } from '../../shared/queue/index.js';
import type { QueueState } from './state.js';
import type { StoredMessage } from './types.js';

/** The queue's storage: messages kept per message group, in send order. */

export function enqueue(q: QueueState, message: QueueMessage, now: number): void {
  q.sequence += 1n;
  const stored: StoredMessage = {
    messageId: randomUUID(),
    body: message.body,
    groupId: message.groupId,
    deduplicationId: message.deduplicationId,
    attributes: { ...message.attributes },
    sequenceNumber: q.sequence.toString().padStart(20, '0'),
    sentAt: now,
    firstReceivedAt: undefined,
    receiveCount: 0,
    receipt: undefined,
    inRun: 0,
    lastError: undefined,
  };
  const messages = q.groups.get(message.groupId);
  if (messages === undefined) q.groups.set(message.groupId, [stored]);
  else messages.push(stored);
}

/** DeleteMessage: the message leaves its group (and the group goes when it is empty). */
export function remove(q: QueueState, m: StoredMessage): void {
  const messages = q.groups.get(m.groupId);
  if (messages === undefined) return;
  const index = messages.indexOf(m);
  q.received.delete(m);
  if (index >= 0) {
    messages.splice(index, 1);
    q.counters.deleted += 1;
    q.options.onDeleted?.({
      groupId: m.groupId,
      body: m.body,
      sentAt: m.sentAt,
      deletedAt: q.settings.clock.now(),
      receiveCount: m.receiveCount,
    });
  }
  if (messages.length === 0) q.groups.delete(m.groupId);
}

export function allMessages(q: QueueState): StoredMessage[] {
  return [...q.groups.values()].flat();
}
