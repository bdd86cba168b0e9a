import { markReceived, runBatch } from './delivery.js';
import { LocalQueueError } from './errors.js';
import { receiveBatch } from './selection.js';
import type { QueueState } from './state.js';
import { queueStats } from './stats.js';
import type { Waiter } from './types.js';
import { expireReceipts } from './visibility.js';

/**
 * The event source mapping's loop: after each change (a send, a finished batch, a timer), one pump
 * hands out batches up to the concurrency, then tells the waiters whether the queue settled.
 */

export function schedulePump(q: QueueState): void {
  if (q.pumpScheduled) return;
  q.pumpScheduled = true;
  queueMicrotask(() => {
    q.pumpScheduled = false;
    pump(q);
  });
}

/** A pump at `atMs` (queue clock): when a receipt's visibility runs out. */
export function addTimer(q: QueueState, atMs: number): void {
  const { clock } = q.settings;
  const handle = clock.setTimeout(
    () => {
      q.timers.delete(handle);
      schedulePump(q);
    },
    Math.max(0, atMs - clock.now()),
  );
  q.timers.add(handle);
}

function pump(q: QueueState): void {
  const consumer = q.consumer;
  if (q.closed || consumer === undefined) {
    notify(q);
    return;
  }
  const now = q.settings.clock.now();
  expireReceipts(q, now);
  while (!q.paused && q.running.size < q.settings.concurrency) {
    const batch = receiveBatch(q, now);
    if (batch.length === 0) break;
    const handles = markReceived(q, batch, now);
    addTimer(q, now + q.settings.visibilityTimeoutMs);
    const task = runBatch(q, batch, handles, consumer);
    q.running.add(task);
    void task.finally(() => {
      q.running.delete(task);
      schedulePump(q);
    });
  }
  notify(q);
}

export function notify(q: QueueState): void {
  if (q.waiters.length === 0 || q.pumpScheduled) return;
  // Called at the end of each pump: with no batch running, nothing is receivable right now.
  const isSettled = q.running.size === 0;
  const isIdle = isSettled && q.groups.size === 0;
  const keep: Waiter[] = [];
  for (const w of q.waiters) {
    if (w.kind === 'settled' ? isSettled : isIdle) w.resolve();
    else keep.push(w);
  }
  q.waiters = keep;
}

export function wait(q: QueueState, kind: Waiter['kind']): Promise<void> {
  return new Promise<void>((resolve) => {
    q.waiters.push({ kind, resolve });
    schedulePump(q);
  });
}

/** Resolves when the queue holds nothing and runs nothing; with a timeout, fails saying what is left. */
export function waitForIdle(q: QueueState, timeoutMs: number | undefined): Promise<void> {
  const idle = wait(q, 'idle');
  if (timeoutMs === undefined) return idle;
  const { clock } = q.settings;
  return new Promise<void>((resolve, reject) => {
    const handle = clock.setTimeout(() => {
      const s = queueStats(q);
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
}

/** Stops handing out batches and waits for the running ones. */
export async function closeQueue(q: QueueState): Promise<void> {
  q.closed = true;
  for (const t of q.timers) q.settings.clock.clearTimeout(t);
  q.timers.clear();
  await Promise.allSettled([...q.running]);
  notify(q);
}
