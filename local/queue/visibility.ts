import type { VisibilityChange } from '../../shared/queue/index.js';
import { LocalQueueError } from './errors.js';
import type { QueueState } from './state.js';
import type { StoredMessage } from './types.js';

/** Receipts and visibility timeouts: when received messages become receivable again. */

/** Visibility timeouts that have run out make their messages receivable again. */
export function expireReceipts(q: QueueState, now: number): void {
  for (const m of q.received) {
    if (m.receipt === undefined) q.received.delete(m);
    else if (m.receipt.visibleAt <= now) {
      m.receipt = undefined;
      q.received.delete(m);
    }
  }
}

/** When the earliest received, not running message becomes visible again (queue clock), if any. */
export function nextVisibleAt(q: QueueState): number | undefined {
  let next: number | undefined;
  for (const m of q.received) {
    if (m.inRun > 0 || m.receipt === undefined) continue;
    if (next === undefined || m.receipt.visibleAt < next) next = m.receipt.visibleAt;
  }
  return next;
}

/** How long of [sentAt, now] an earlier message of m's group held it back by being deferred. */
export function heldByDeferral(q: QueueState, m: StoredMessage, now: number): number {
  let held = 0;
  let end = m.sentAt;
  for (const d of q.deferrals.get(m.groupId) ?? []) {
    if (d.messageId === m.messageId) continue;
    const from = Math.max(d.from, end, m.sentAt);
    const to = Math.min(d.to, now);
    if (to > from) {
      held += to - from;
      end = to;
    }
  }
  return held;
}

/**
 * SQS ChangeMessageVisibility: the message comes back `seconds` from now, and a timer (`wakeAt`) brings
 * it back. Like SQS, a receipt handle that is not the message's current one is refused: the count of
 * those is returned for the caller to fail the whole call with.
 */
export function applyVisibilityChanges(q: QueueState, changes: VisibilityChange[], wakeAt: (atMs: number) => void): number {
  const now = q.settings.clock.now();
  const byHandle = new Map<string, StoredMessage>();
  for (const m of q.received) if (m.receipt !== undefined) byHandle.set(m.receipt.handle, m);
  const unknown = changes.filter((c) => !byHandle.has(c.receiptHandle)).length;
  for (const c of changes) {
    const m = byHandle.get(c.receiptHandle);
    if (m?.receipt === undefined) continue;
    if (!Number.isInteger(c.seconds) || c.seconds < 0 || c.seconds > 43_200) {
      throw new LocalQueueError('invalid_message', 'VisibilityTimeout must be an integer from 0 to 43200 (SQS)');
    }
    m.receipt.visibleAt = now + c.seconds * 1000;
    q.counters.visibilityChanges += 1;
    if (q.options.onFirstReceived && c.waiting) {
      const spans = q.deferrals.get(m.groupId) ?? [];
      spans.push({ messageId: m.messageId, from: now, to: m.receipt.visibleAt });
      q.deferrals.set(m.groupId, spans);
    }
    wakeAt(m.receipt.visibleAt);
  }
  return unknown;
}
