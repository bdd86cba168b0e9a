import type { SQSBatchResponse } from 'aws-lambda';
import type { StoredMessage } from './types.js';

/** What a consumer's answer and failures say about its batch, read as the event source mapping reads them. */

// biome-ignore lint/suspicious/noConfusingVoidType: what a QueueConsumer returns, void included
export function failedIds(response: SQSBatchResponse | void | undefined, batch: StoredMessage[]): Set<string> {
  const ids = new Set(batch.map((m) => m.messageId));
  if (response === undefined || response === null) return new Set();
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  // Like the event source mapping: a malformed answer or an unknown id fails the whole batch.
  if (!Array.isArray(failures)) return ids;
  const failed = new Set<string>();
  for (const f of failures) {
    const id = (f as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return ids;
    failed.add(id);
  }
  return failed;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
