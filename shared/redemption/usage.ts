import { randomUUID } from 'node:crypto';
import type { ProcessOutcome, PurchaseEvent, RefundEvent } from '../events/index.js';
import type { Ledger, RedemptionRecord } from '../ledger/index.js';
import type { Processor } from '../points/index.js';
import { giveBack, type RedemptionDeps } from './protocol.js';

/**
 * Codes used in orders: an order (`orders/paid`) whose discount codes carry a redemption's code marks it
 * `used`, keeping the order id; the order earns on what was paid, as any order. A refund of such an
 * order gives the redeemed points back exactly once when the source's `redemption.onRefund` says so:
 * `full` (default) once the order is refunded in full or cancelled, `any` on any refund, `never`.
 * A partial refund gives none back by default: the discount was spent on what the customer kept, and
 * splitting it would give back points for goods still held.
 */

export interface UsageDeps {
  /** The redemption dependencies per source; undefined: the source does not redeem. */
  redemption(source: string): RedemptionDeps | undefined;
  ledger: Pick<Ledger, 'getOrder'>;
}

const isAck = (o: ProcessOutcome) => o.action === 'ack';

/** `next`, then what its purchases and refunds mean for redemptions; a failure here retries the event (both sides are exactly once). */
export function withRedemptionUsage(next: Processor, deps: UsageDeps | undefined): Processor {
  if (deps === undefined) return next;
  return {
    ...next,
    async process(input, context) {
      const outcome = await next.process(input, context);
      if (!isAck(outcome)) return outcome;
      const event = input as PurchaseEvent | RefundEvent;
      const redemption = typeof event?.source === 'string' ? deps.redemption(event.source) : undefined;
      if (!redemption) return outcome;
      if (event.type === 'purchase' && (event.discountCodes?.length ?? 0) > 0) {
        await markUsed(redemption, event.orderId, event.discountCodes ?? []);
      }
      if (event.type === 'refund') await returnOnRefund(redemption, deps, event);
      return outcome;
    },
  };
}

async function markUsed(deps: RedemptionDeps, orderId: string, codes: readonly string[]): Promise<void> {
  for (const code of codes) {
    const record = await deps.ledger.byCode(code);
    if (!record || record.source !== deps.source || record.state === 'used') continue;
    await withLease(deps, record, async (owner) => {
      await deps.ledger.linkOrder(deps.source, orderId, record.pk);
      await deps.ledger.update(record.pk, owner, { state: 'used', orderId }, { release: true });
    });
  }
}

async function returnOnRefund(deps: RedemptionDeps, usage: UsageDeps, event: RefundEvent): Promise<void> {
  const policy = deps.settings.onRefund;
  if (policy === 'never') return;
  const used = (await deps.ledger.byOrder(deps.source, event.orderId)).filter((r) => r.state === 'used');
  if (used.length === 0) return;
  if (policy === 'full' && !event.refundsRemainder) {
    const order = await usage.ledger.getOrder({ source: event.source, orderId: event.orderId });
    const full = order !== undefined && order.eligibleAmount !== undefined && order.refundedSoFar >= order.eligibleAmount;
    if (!full) return;
  }
  for (const record of used) {
    await withLease(deps, record, async (owner, current) => {
      const back = await giveBack(deps, current, owner, { state: 'returned', returnReason: 'refunded' });
      if (!back.ok) throw new Error(`redemption not given back yet: ${back.refusal.kind}`);
    });
  }
}

/** Runs `work` under the record's lease; a lease held elsewhere is a retry of the event. */
async function withLease(
  deps: RedemptionDeps,
  record: RedemptionRecord,
  work: (owner: string, current: RedemptionRecord) => Promise<void>,
) {
  const owner = randomUUID();
  const claimed = await deps.ledger.claim(record.pk, owner);
  if (!claimed) {
    const now = await deps.ledger.get(record.pk);
    if (now && (now.state === 'used' || now.state === 'returned' || now.state === 'failed')) return;
    throw new Error('redemption record busy: retried');
  }
  await work(owner, claimed);
}
