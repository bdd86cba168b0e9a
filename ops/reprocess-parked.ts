import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Ledger, scanUnheldWithOutcome } from '../shared/ledger/index.js';
import { type EventQueue, queueMessageFor } from '../shared/queue/index.js';
import type { QueuedEvent } from '../shared/events/index.js';
import { jstIfInstant } from '../shared/time/index.js';

/** What `npm run reprocess -- --outcome upstream_rejected` acts on: the ledger table and the event queue. */
export interface ParkedTarget {
  documentClient: Pick<DynamoDBDocumentClient, 'send'>;
  tableName: string;
  ledger: Pick<Ledger, 'reopenRejected'>;
  queue: EventQueue;
}

export interface ParkedFilter {
  outcome: 'upstream_rejected';
  source?: string | undefined;
  /** Parked at or after this time. */
  since?: Date | undefined;
  dryRun: boolean;
}

/** One parked event as the ledger holds it. */
interface Parked {
  kind: 'purchase' | 'refund';
  source: string;
  orderId: string;
  refundId?: string;
  parkedAt: string;
  reason: string;
  /** The event as first received (JSON); absent on orders parked before the event was kept. */
  event: string | undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Orders and refunds whose outcome is `upstream_rejected` and that nobody holds: parked, or re-opened by
 * an earlier run whose message may not have arrived (running it twice is safe: the ledger claims once).
 */
async function* parkedItems(target: ParkedTarget, filter: ParkedFilter): AsyncGenerator<Parked> {
  for await (const item of scanUnheldWithOutcome(target.documentClient, target.tableName, filter.outcome)) {
    const parkedAt = str(item.finishedAt) ?? str(item.updatedAt) ?? '';
    if (filter.source !== undefined && item.source !== filter.source) continue;
    if (filter.since !== undefined && !(Date.parse(parkedAt) >= filter.since.getTime())) continue;
    const refund = item.kind === 'refund';
    yield {
      kind: refund ? 'refund' : 'purchase',
      source: String(item.source),
      orderId: String(item.orderId),
      ...(refund ? { refundId: String(item.refundId) } : {}),
      parkedAt,
      reason: str(item.reason) ?? '',
      event: refund ? str(item.event) : str(item.rejectedEvent),
    };
  }
}

/**
 * A deduplication id of its own per run: the original delivery's would be dropped by SQS FIFO inside its
 * 5-minute window, leaving a re-opened order with no message.
 */
function rerunDeduplicationId(p: Parked, runAt: number): string {
  const hash = createHash('sha256')
    .update(`${p.source}\n${p.orderId}\n${p.refundId ?? ''}\n${runAt}`)
    .digest('hex');
  return `reprocess:${hash}`;
}

const describe = (p: Parked) => `${p.kind} ${p.source} ${p.orderId}${p.refundId ? ` refund ${p.refundId}` : ''}`;

/**
 * `npm run reprocess -- --outcome upstream_rejected [--source S] [--since ISO] [--dry-run]`: every event
 * parked as upstream_rejected goes through the queue again, once per run. A purchase's order is first
 * re-opened (pending, lease free: `reopenRejected`), so the worker claims it; a parked refund is claimable
 * as it is. The ledger's claim and the marker in the point history make a second delivery of the same
 * event a duplicate, so a run repeated, or run while the first is still draining, credits nothing twice.
 * Last line: `reprocess: found=N queued=Q`. Exit code 0, or 1 when some found event could not be queued.
 */
export async function reprocessParked(
  target: ParkedTarget,
  filter: ParkedFilter,
  print: (line: string) => void,
  now: () => number = Date.now,
): Promise<number> {
  let found = 0;
  let queued = 0;
  let unkept = 0;
  const runAt = now();
  for await (const p of parkedItems(target, filter)) {
    found += 1;
    const what = `${describe(p)} (parked ${jstIfInstant(p.parkedAt)}: ${p.reason})`;
    if (p.event === undefined) {
      print(`cannot queue ${what}: the ledger kept no event (parked before events were kept): credit or debit it by hand`);
      unkept += 1;
      continue;
    }
    if (filter.dryRun) {
      print(`would queue ${what}`);
      continue;
    }
    if (p.kind === 'purchase' && !(await target.ledger.reopenRejected({ source: p.source, orderId: p.orderId }))) {
      print(`skipped ${what}: taken by another attempt meanwhile`);
      continue;
    }
    const message = queueMessageFor(JSON.parse(p.event) as QueuedEvent);
    await target.queue.send({ ...message, deduplicationId: rerunDeduplicationId(p, runAt) });
    queued += 1;
    print(`queued ${what}`);
  }
  print(`reprocess: found=${found} queued=${queued}`);
  return unkept > 0 ? 1 : 0;
}
