import { type EarlierPurchases, PurchaseEvent } from '../events/index.js';
import type { Ledger } from '../ledger/index.js';
import type { ProcessContext, ProcessOutcome, Processor } from '../points/index.js';
import { retryReason } from '../retry/index.js';
import { DAY_MS } from '../time/index.js';

/**
 * What crediting a customer's earlier purchases came to: the customer event's outcome carries it, and
 * the orders to hand over (`handOver`, the worker's: see ProcessContext.followUpsQueued) as its `next`.
 */
export type EarlierCredits = EarlierPurchases & { handOver?: PurchaseEvent[] };

export interface RetroDeps {
  ledger: Pick<Ledger, 'listUnlinkedOrders' | 'getOrder' | 'leaveUnlinkedIndex' | 'markCustomerLinked'>;
  processor: Pick<Processor, 'creditLinkedPurchase'>;
  clock: () => number;
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
}

export interface RetroInput {
  source: string;
  externalKey: string;
  externalId: string;
  /** Purchases of this many days back (0: none). */
  days: number;
}

/**
 * Credits, once, the customer's purchases of the last `days` that ended `customer_not_found` (the
 * ledger's byUnlinkedCustomer index), each through the usual purchase protocol (claim, look up, one
 * calculation with the order's marker, record), then the refunds that waited for it. Safe to run
 * again at any time: a credited order has left the index, and one claimed elsewhere waits its turn.
 * An order recorded after the look is not missed: the customer's link mark is written before it.
 */
export async function creditEarlierPurchases(deps: RetroDeps, input: RetroInput, context?: ProcessContext): Promise<EarlierCredits> {
  const tally: EarlierCredits = { credited: 0, points: 0, pending: 0, notFound: 0 };
  if (input.days <= 0) return tally;
  const since = new Date(deps.clock() - input.days * DAY_MS).toISOString();
  // First the mark, then the look: a purchase of theirs recording customer_not_found after this look
  // (it looked the customer up before the link) finds the mark and credits itself (purchase.ts).
  await deps.ledger.markCustomerLinked({ source: input.source, externalKey: input.externalKey, externalId: input.externalId });
  const refs = await deps.ledger.listUnlinkedOrders({ ...input, since });
  for (const ref of refs) {
    // The index is eventually consistent: the order itself says whether it still waits.
    const order = await deps.ledger.getOrder(ref);
    if (!order?.purchaseEvent) continue;
    const event = PurchaseEvent.safeParse(JSON.parse(order.purchaseEvent));
    if (!event.success) {
      deps.logger?.warn('stored purchase event unreadable; not credited', { ...ref });
      tally.pending++;
      tally.pendingKind ??= 'invalid_event';
      continue;
    }
    // In the worker each order becomes a message of its own: one order's crash or wait is its own, and
    // the link is done once all are handed over (a link with many orders no longer fails as a whole).
    if (context?.followUpsQueued) {
      tally.handOver = [...(tally.handOver ?? []), { ...event.data, customerLinked: true }];
      tally.handedOver = (tally.handedOver ?? 0) + 1;
      continue;
    }
    const outcome = await deps.processor.creditLinkedPurchase(event.data, context);
    countEarlier(tally, outcome);
    // Credited, and the refunds that waited for it through (or handed over): it leaves the index. A crash
    // before this leaves it there, credited: the retried event runs its waiting refunds (a duplicate credit is not made).
    if (outcome.action === 'ack' && outcome.kind !== 'customer_not_found') await deps.ledger.leaveUnlinkedIndex(ref);
  }
  return tally;
}

/** Adds an earlier order's outcome to the tally (the worker's consumer too, for an order it could not hand over). */
export function countEarlier(tally: EarlierPurchases, outcome: ProcessOutcome): void {
  if (outcome.kind === 'credited') {
    tally.credited++;
    tally.points += outcome.points;
  } else if (outcome.kind === 'customer_not_found') tally.notFound++;
  if (outcome.action === 'retry') {
    tally.pending++;
    if (tally.pendingKind === undefined && 'until' in outcome && outcome.until !== undefined) tally.pendingUntil = outcome.until;
    // What it waits for: its own kind, or (credited, a refund of it still pending) that refund's.
    tally.pendingKind ??= retryReason(outcome) as ProcessOutcome['kind'];
  }
}
