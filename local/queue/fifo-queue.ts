import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueMessage } from '../../shared/queue/index.js';
import { describeError, failedIds } from './batch-result.js';
import { systemClock } from './clock.js';
import { LocalQueueError } from './errors.js';
import type { DeadLetter, LocalQueue, LocalQueueOptions, LocalQueueStats, QueueConsumer, StoredMessage, Waiter } from './types.js';
import { validateMessage } from './validate.js';

export type { DeadLetter, LocalQueue, LocalQueueOptions, LocalQueueStats, QueueConsumer } from './types.js';

/**
 * An in-process SQS FIFO queue and its Lambda event source mapping: the delivery behaviour the worker
 * meets in AWS (at-least-once, ordered per message group, one group in flight at a time, visibility
 * timeout, partial batch failures, dead-letter after maxReceiveCount), not a direct function call.
 */
export function createLocalQueue(options: LocalQueueOptions = {}): LocalQueue {
  const name = options.name ?? 'points-events.fifo';
  const batchSize = options.batchSize ?? 10;
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? 30_000;
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  const dedupWindowMs = options.deduplicationWindowMs ?? 300_000;
  const concurrency = options.concurrency ?? 2;
  const clock = options.clock ?? systemClock;
  const region = options.region ?? 'us-east-1';
  const arn = `arn:aws:sqs:${region}:${options.accountId ?? '000000000000'}:${name}`;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
    throw new LocalQueueError('invalid_message', 'batchSize must be an integer from 1 to 10 (SQS FIFO limit)');
  }
  if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1) {
    throw new LocalQueueError('invalid_message', 'maxReceiveCount must be a positive integer');
  }

  /** Messages of each group in send order; the map keeps groups in order of first appearance. */
  const groups = new Map<string, StoredMessage[]>();
  const dedupSeen = new Map<string, number>();
  /** Messages holding a receipt (in flight), so expiring receipts does not walk the whole queue. */
  const received = new Set<StoredMessage>();
  const dead: DeadLetter[] = [];
  const timers = new Set<unknown>();
  const running = new Set<Promise<void>>();
  let waiters: Waiter[] = [];
  let consumer: QueueConsumer | undefined;
  let closed = false;
  /** The event source mapping disabled (shared/consumer/pull.ts): messages stay queued, none is handed out. */
  let paused = false;
  let pumpScheduled = false;
  let sequence = 0n;
  const counters = { sent: 0, deduplicated: 0, received: 0, deleted: 0, visibilityChanges: 0 };
  /** Per group, the spans its messages waited in place (only kept while someone may ask: onFirstReceived). */
  const deferrals = new Map<string, { messageId: string; from: number; to: number }[]>();

  /** How long of [sentAt, now] an earlier message of m's group held it back by being deferred. */
  function heldByDeferral(m: StoredMessage, now: number): number {
    let held = 0;
    let end = m.sentAt;
    for (const d of deferrals.get(m.groupId) ?? []) {
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

  function schedulePump(): void {
    if (pumpScheduled) return;
    pumpScheduled = true;
    queueMicrotask(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function addTimer(atMs: number): void {
    const handle = clock.setTimeout(
      () => {
        timers.delete(handle);
        schedulePump();
      },
      Math.max(0, atMs - clock.now()),
    );
    timers.add(handle);
  }

  /** Visibility timeouts that have run out make their messages receivable again. */
  function expireReceipts(now: number): void {
    for (const m of received) {
      if (m.receipt === undefined) received.delete(m);
      else if (m.receipt.visibleAt <= now) {
        m.receipt = undefined;
        received.delete(m);
      }
    }
  }

  function deadLetter(m: StoredMessage, now: number): void {
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
    dead.push(letter);
    options.onDeadLetter?.(letter);
  }

  /** One ReceiveMessage as SQS FIFO answers it: whole groups' heads, in order, never a blocked group. */
  function receiveBatch(now: number): StoredMessage[] {
    const batch: StoredMessage[] = [];
    for (const [groupId, messages] of groups) {
      if (batch.length >= batchSize) break;
      // A group with a message in flight is blocked until that message is deleted or visible again.
      // Receipts are only ever held by a prefix of the group (batches take its head), so the head tells.
      if (messages[0]?.receipt !== undefined) continue;
      while (messages.length > 0 && batch.length < batchSize) {
        const head = messages[0]!;
        // SQS moves a message to the DLQ on the receive after its maxReceiveCount-th.
        if (head.receiveCount >= maxReceiveCount) {
          messages.shift();
          deadLetter(head, now);
          continue;
        }
        // Take the group's consecutive messages; the next group starts after them.
        const take = messages.slice(0, batchSize - batch.length);
        batch.push(...take);
        break;
      }
      if (messages.length === 0) groups.delete(groupId);
    }
    return batch;
  }

  function pump(): void {
    if (closed || consumer === undefined) {
      notify();
      return;
    }
    const now = clock.now();
    expireReceipts(now);
    while (!paused && running.size < concurrency) {
      const batch = receiveBatch(now);
      if (batch.length === 0) break;
      const task = deliver(batch, now, consumer);
      running.add(task);
      void task.finally(() => {
        running.delete(task);
        schedulePump();
      });
    }
    notify();
  }

  async function deliver(batch: StoredMessage[], now: number, handler: QueueConsumer): Promise<void> {
    const handles = new Map<string, string>();
    for (const m of batch) {
      const handle = randomBytes(24).toString('base64url');
      m.receiveCount += 1;
      if (m.firstReceivedAt === undefined && options.onFirstReceived) {
        const { groupId, body, sentAt } = m;
        options.onFirstReceived({ groupId, body, sentAt, receivedAt: now, heldByDeferralMs: heldByDeferral(m, now) });
      }
      m.firstReceivedAt ??= now;
      m.receipt = { handle, visibleAt: now + visibilityTimeoutMs };
      received.add(m);
      m.inRun += 1;
      handles.set(m.messageId, handle);
      counters.received += 1;
    }
    addTimer(now + visibilityTimeoutMs);
    const event: SQSEvent = { Records: batch.map((m) => toRecord(m, handles.get(m.messageId)!)) };

    let failed: Set<string>;
    try {
      const response = await handler(event);
      failed = failedIds(response, batch);
    } catch (error) {
      // A thrown handler fails the whole batch: every message returns after its visibility timeout.
      const text = describeError(error);
      for (const m of batch) m.lastError = text;
      failed = new Set(batch.map((m) => m.messageId));
    }

    for (const m of batch) {
      m.inRun -= 1;
      // A receive whose visibility ran out is stale: its delete is refused, the message stays.
      if (m.receipt?.handle !== handles.get(m.messageId)) continue;
      if (!failed.has(m.messageId)) remove(m);
    }
  }

  function remove(m: StoredMessage): void {
    const messages = groups.get(m.groupId);
    if (messages === undefined) return;
    const index = messages.indexOf(m);
    received.delete(m);
    if (index >= 0) {
      messages.splice(index, 1);
      counters.deleted += 1;
      options.onDeleted?.({ groupId: m.groupId, body: m.body, sentAt: m.sentAt, deletedAt: clock.now(), receiveCount: m.receiveCount });
    }
    if (messages.length === 0) groups.delete(m.groupId);
  }

  function toRecord(m: StoredMessage, receiptHandle: string): SQSRecord {
    return {
      messageId: m.messageId,
      receiptHandle,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentAt),
        SenderId: 'AIDALOCALQUEUE000000',
        ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt ?? m.sentAt),
        SequenceNumber: m.sequenceNumber,
        MessageGroupId: m.groupId,
        MessageDeduplicationId: m.deduplicationId,
      },
      messageAttributes: Object.fromEntries(
        Object.entries(m.attributes).map(([k, v]) => [
          k,
          { stringValue: v, dataType: 'String', stringListValues: [], binaryListValues: [] },
        ]),
      ),
      md5OfBody: createHash('md5').update(m.body, 'utf8').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: region,
    };
  }

  function enqueue(message: QueueMessage, now: number): void {
    sequence += 1n;
    const stored: StoredMessage = {
      messageId: randomUUID(),
      body: message.body,
      groupId: message.groupId,
      deduplicationId: message.deduplicationId,
      attributes: { ...message.attributes },
      sequenceNumber: sequence.toString().padStart(20, '0'),
      sentAt: now,
      firstReceivedAt: undefined,
      receiveCount: 0,
      receipt: undefined,
      inRun: 0,
      lastError: undefined,
    };
    const messages = groups.get(message.groupId);
    if (messages === undefined) groups.set(message.groupId, [stored]);
    else messages.push(stored);
  }

  function all(): StoredMessage[] {
    return [...groups.values()].flat();
  }

  function stats(): LocalQueueStats {
    const now = clock.now();
    let visible = 0;
    let processing = 0;
    let waitingRetry = 0;
    for (const m of all()) {
      if (m.inRun > 0) processing += 1;
      else if (m.receipt !== undefined && m.receipt.visibleAt > now) waitingRetry += 1;
      else visible += 1;
    }
    let receivableGroups = 0;
    for (const messages of groups.values()) {
      const head = messages[0];
      if (head !== undefined && (head.receipt === undefined || head.receipt.visibleAt <= now)) receivableGroups += 1;
    }
    return {
      visible,
      processing,
      waitingRetry,
      deadLettered: dead.length,
      ...counters,
      receivableGroups,
      runningBatches: running.size,
      paused,
    };
  }

  function notify(): void {
    if (waiters.length === 0 || pumpScheduled) return;
    // Called at the end of each pump: with no batch running, nothing is receivable right now.
    const isSettled = running.size === 0;
    const isIdle = isSettled && groups.size === 0;
    const keep: Waiter[] = [];
    for (const w of waiters) {
      if (w.kind === 'settled' ? isSettled : isIdle) w.resolve();
      else keep.push(w);
    }
    waiters = keep;
  }

  function wait(kind: Waiter['kind']): Promise<void> {
    return new Promise<void>((resolve) => {
      waiters.push({ kind, resolve });
      schedulePump();
    });
  }

  return {
    async send(message) {
      if (closed) throw new LocalQueueError('closed', 'the queue is closed');
      validateMessage(message);
      const now = clock.now();
      counters.sent += 1;
      const seenAt = dedupSeen.get(message.deduplicationId);
      if (seenAt !== undefined && now - seenAt < dedupWindowMs) {
        // SQS answers success and drops the copy: a retried send cannot create a second message.
        counters.deduplicated += 1;
        options.onDeduplicated?.(message);
        return;
      }
      // Entries are in send order, so the expired ones are at the front (an expired id sent again
      // is among them: it is deleted here and set again at the back).
      for (const [id, at] of dedupSeen) {
        if (now - at < dedupWindowMs) break;
        dedupSeen.delete(id);
      }
      dedupSeen.set(message.deduplicationId, now);
      enqueue(message, now);
      schedulePump();
    },
    start(c) {
      consumer = c;
      schedulePump();
    },
    async pause() {
      paused = true;
    },
    async resume() {
      paused = false;
      schedulePump();
    },
    async isPaused() {
      return paused;
    },
    stats,
    nextVisibleAt() {
      let next: number | undefined;
      for (const m of received) {
        if (m.inRun > 0 || m.receipt === undefined) continue;
        if (next === undefined || m.receipt.visibleAt < next) next = m.receipt.visibleAt;
      }
      return next;
    },
    // SQS ChangeMessageVisibility: the message comes back `seconds` from now. Like SQS, a receipt
    // handle that is not the message's current one is refused (the whole call fails here).
    async changeVisibility(changes) {
      const now = clock.now();
      const byHandle = new Map<string, StoredMessage>();
      for (const m of received) if (m.receipt !== undefined) byHandle.set(m.receipt.handle, m);
      const unknown = changes.filter((c) => !byHandle.has(c.receiptHandle)).length;
      for (const c of changes) {
        const m = byHandle.get(c.receiptHandle);
        if (m?.receipt === undefined) continue;
        if (!Number.isInteger(c.seconds) || c.seconds < 0 || c.seconds > 43_200) {
          throw new LocalQueueError('invalid_message', 'VisibilityTimeout must be an integer from 0 to 43200 (SQS)');
        }
        m.receipt.visibleAt = now + c.seconds * 1000;
        counters.visibilityChanges += 1;
        if (options.onFirstReceived && c.waiting) {
          const spans = deferrals.get(m.groupId) ?? [];
          spans.push({ messageId: m.messageId, from: now, to: m.receipt.visibleAt });
          deferrals.set(m.groupId, spans);
        }
        addTimer(m.receipt.visibleAt);
      }
      schedulePump();
      if (unknown > 0)
        throw new LocalQueueError('invalid_message', `${unknown} receipt handle(s) are not current (ReceiptHandleIsInvalid)`);
    },
    deadLetters: () => dead.map((d) => ({ ...d })),
    redrive(filter) {
      const now = clock.now();
      const moved = dead.filter((d) => filter === undefined || filter(d));
      for (const d of moved) {
        dead.splice(dead.indexOf(d), 1);
        // Moved back as a new message: deduplication does not apply to a redrive.
        enqueue({ body: d.body, groupId: d.groupId, deduplicationId: d.deduplicationId }, now);
      }
      schedulePump();
      return moved.length;
    },
    settled: () => wait('settled'),
    waitForIdle(opts) {
      const idle = wait('idle');
      if (opts?.timeoutMs === undefined) return idle;
      const timeoutMs = opts.timeoutMs;
      return new Promise<void>((resolve, reject) => {
        const handle = clock.setTimeout(() => {
          const s = stats();
          reject(
            new LocalQueueError(
              'timeout',
              `queue not idle after ${timeoutMs} ms (visible ${s.visible}, processing ${s.processing}, waiting retry ${s.waitingRetry})`,
            ),
          );
        }, timeoutMs);
        void idle.then(() => {
          clock.clearTimeout(handle);
          resolve();
        });
      });
    },
    async close() {
      closed = true;
      for (const t of timers) clock.clearTimeout(t);
      timers.clear();
      await Promise.allSettled([...running]);
      notify();
    },
  };
}
