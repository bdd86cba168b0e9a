import type { Ledger } from '../shared/ledger/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';

/**
 * Why a dead letter kept failing: the ledger keeps the reason (the queue, local or SQS, only knows
 * that it failed). `event` is the message body, parsed or not; `fallback` what the queue knows.
 */
export async function deadLetterReason(ledger: Ledger, event: unknown, fallback?: string | null): Promise<string> {
  const parsed = typeof event === 'string' ? parseJsonOrUndefined(event) : event;
  const e = parsed as { source?: unknown; orderId?: unknown; refundId?: unknown } | undefined;
  if (typeof e?.source !== 'string' || typeof e.orderId !== 'string') return fallback ?? '-';
  const ref = { source: e.source, orderId: e.orderId };
  const record = typeof e.refundId === 'string' ? await ledger.getRefund({ ...ref, refundId: e.refundId }) : await ledger.getOrder(ref);
  return record?.lastError ?? fallback ?? '-';
}
