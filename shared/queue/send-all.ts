import { QueueSendError } from './errors.js';
import type { BatchEntryFailure, EventQueue, QueueMessage } from './types.js';

/** SQS takes at most 10 entries per SendMessageBatch, and 256 KiB for the entries together. */
export const MAX_BATCH_ENTRIES = 10;
export const MAX_BATCH_BYTES = 256 * 1024;

export interface SendAllOptions {
  /** Calls per entry before giving up (default 4: the first and three retries). */
  attempts?: number;
  /** Wait before a retry, by retry number from 1 (default 25 ms x 2^(n-1)). */
  backoffMs?: (retry: number) => number;
  sleep?: (ms: number) => Promise<void>;
}

const bytesOf = (m: QueueMessage) =>
  Buffer.byteLength(m.body) + Object.entries(m.attributes ?? {}).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);

/** The messages in batches of at most MAX_BATCH_ENTRIES and MAX_BATCH_BYTES, in order. */
export function batchesOf(messages: readonly QueueMessage[]): QueueMessage[][] {
  const batches: QueueMessage[][] = [];
  let current: QueueMessage[] = [];
  let size = 0;
  for (const m of messages) {
    const bytes = bytesOf(m);
    if (current.length > 0 && (current.length === MAX_BATCH_ENTRIES || size + bytes > MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(m);
    size += bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Queues every message, in order, in batches where the queue takes them (one call per 10): an entry
 * that failed is sent again with the others that failed, a batch whose call failed is sent again
 * whole (FIFO deduplication drops a copy queued before the error), until `attempts`. Resolves once
 * every message is queued; otherwise throws QueueSendError naming how many were not (a sender fault
 * is not retried), so the caller answers 5xx and the sender retries: nothing is dropped in silence.
 */
export async function sendAll(queue: EventQueue, messages: readonly QueueMessage[], options: SendAllOptions = {}): Promise<void> {
  const sendBatch = queue.sendBatch?.bind(queue);
  if (!sendBatch) {
    for (const m of messages) await queue.send(m);
    return;
  }
  const attempts = options.attempts ?? 4;
  const backoff = options.backoffMs ?? ((n: number) => 25 * 2 ** (n - 1));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (const batch of batchesOf(messages)) {
    let pending = batch;
    let last: { failures: BatchEntryFailure[]; error?: unknown } = { failures: [] };
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > 1) await sleep(backoff(attempt - 1));
      try {
        last = { failures: await sendBatch(pending) };
      } catch (error) {
        last = { failures: pending.map((_, index) => ({ index, code: 'call_failed', senderFault: false })), error };
      }
      const hopeless = last.failures.some((f) => f.senderFault);
      pending = last.failures.map((f) => pending[f.index]).filter((m): m is QueueMessage => m !== undefined);
      if (pending.length > 0 && (hopeless || attempt >= attempts)) {
        const codes = [...new Set(last.failures.map((f) => f.code))].join(', ');
        throw new QueueSendError(last.error ?? new Error(`${pending.length} message(s) not queued (${codes})`));
      }
    }
  }
}
