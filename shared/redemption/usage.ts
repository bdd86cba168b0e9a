import { randomUUID } from 'node:crypto';
import type { LineQuantity, ProcessOutcome, PurchaseEvent, RefundEvent } from '../events/index.js';
import type { Ledger, RedemptionRecord } from '../ledger/index.js';
import { METRIC } from '../metrics/index.js';
import type { Processor } from '../points/index.js';
import { clawBack, giveBack, type RedemptionDeps } from './protocol.js';

/**
 * A redemption follows the order that names its code (docs/redemption.md, "Use and return"):
 * `orders/create` links the code to its order (`reserved` while the payment is pending: never swept),
 * `orders/paid` makes it `used`, and the order earns on what was paid, as any order. The code counts only
 * for its own customer's first order: any other order naming it is noted on the record
 * (`misuses`, RedemptionMisuses) and gives nothing back. An order of its customer naming a code whose
 * points were already given back takes them again, once (claw-back, RedemptionClawbacks).
 *
 * The redeemed points come back, once, when the order is cancelled (paid or not), and by the source's
 * `redemption.onRefund`: `full` (default) once every line's quantity is refunded (Shopify's
 * `refund_line_items` against the order's `line_items`, never an amount: a fully discounted order's
 * shipping refund is no refund of its goods), `any` on any refund, `never` on none (a cancellation still does).
 */

export interface UsageDeps {
  /** The redemption dependencies per source; undefined: the source does not redeem. */
  redemption(source: string): RedemptionDeps | undefined;
  ledger: Pick<Ledger, 'getOrder'>;
  metrics?: { addMetric(name: string, unit: 'Count', value: number): void };
}

const isAck = (o: ProcessOutcome) => o.action === 'ack';

/** Nothing to credit or debit (an order not paid yet, or cancelled before payment): only its code is followed. */
const NOT_PAID: ProcessOutcome = { kind: 'skipped', action: 'ack', reason: 'order_not_paid' };

/** `next`, then what its purchases and refunds mean for redemptions; a failure here retries the event (both sides are exactly once). */
export function withRedemptionUsage(next: Processor, deps: UsageDeps | undefined): Processor {
  return {
    ...next,
    async process(input, context) {
      const event = input as PurchaseEvent | RefundEvent;
      const redemption = deps && typeof event?.source === 'string' ? deps.redemption(event.source) : undefined;
      // Never through the points protocol: its ledger record would make the order's `orders/paid` a duplicate.
      if (event?.type === 'purchase' && event.orderCreated) {
        if (redemption && deps) await followOrder(redemption, deps, event, 'reserved');
        return NOT_PAID;
      }
      if (event?.type === 'refund' && event.cancelledUnpaid) {
        if (redemption) await returnOnRefund(redemption, event);
        return NOT_PAID;
      }
      const outcome = await next.process(input, context);
      if (!isAck(outcome) || !redemption || !deps) return outcome;
      if (event.type === 'purchase' && (event.discountCodes?.length ?? 0) > 0) await followOrder(redemption, deps, event, 'used');
      if (event.type === 'refund') await returnOnRefund(redemption, event);
      return outcome;
    },
  };
}

const linesOf = (lines: readonly LineQuantity[] | undefined) =>
  lines === undefined ? undefined : Object.fromEntries(lines.filter((l) => l.quantity > 0).map((l) => [l.id, l.quantity]));

/** The codes of an order: each linked to it, used (paid) or reserved (created), or noted as a misuse, or clawed back. */
async function followOrder(deps: RedemptionDeps, usage: UsageDeps, event: PurchaseEvent, state: 'reserved' | 'used'): Promise<void> {
  for (const code of event.discountCodes ?? []) {
    const record = await deps.ledger.byCode(code);
    if (!record || record.source !== deps.source || record.state === 'refused') continue;
    const why = misuseOf(record, event);
    if (why) {
      await noteMisuse(deps, usage, record, `${why}:${event.orderId}`);
      continue;
    }
    const orderLines = linesOf(event.orderLines);
    if (record.state === 'returned' || record.state === 'failed') {
      // Given back with no order of its own (ended unused): this order takes the points again.
      if (record.orderId === undefined) await clawBackFor(deps, usage, record, event.orderId, orderLines);
      continue;
    }
    if (record.state === 'used' || (record.state === 'reserved' && state === 'reserved')) continue;
    await withLease(deps, record, async (owner) => {
      await deps.ledger.linkOrder(deps.source, event.orderId, record.pk);
      await deps.ledger.update(
        record.pk,
        owner,
        { state, orderId: event.orderId, ...(orderLines ? { orderLines } : {}) },
        { release: true },
      );
    });
  }
}

/** Why an order naming the code counts for nothing, or undefined when it is the code's own order. */
function misuseOf(record: RedemptionRecord, event: PurchaseEvent): 'other_customer' | 'second_order' | undefined {
  // A redacted customer's id is gone (docs/privacy.md): their code is matched by code alone.
  const redacted = record.customerId.startsWith('redacted-');
  if (!redacted && event.customer?.externalId !== record.customerId) return 'other_customer';
  if (record.orderId !== undefined && record.orderId !== event.orderId) return 'second_order';
  return undefined;
}

async function noteMisuse(deps: RedemptionDeps, usage: UsageDeps, record: RedemptionRecord, entry: string): Promise<void> {
  if (!(await deps.ledger.noteMisuse(record.pk, entry))) return;
  usage.metrics?.addMetric(METRIC.redemptionMisuses, 'Count', 1);
  deps.logger?.warn('redemption code named by an order that does not count', { source: deps.source, why: entry.split(':')[0] });
}

async function clawBackFor(
  deps: RedemptionDeps,
  usage: UsageDeps,
  record: RedemptionRecord,
  orderId: string,
  orderLines: Record<string, number> | undefined,
): Promise<void> {
  await withLease(
    deps,
    record,
    async (owner, current) => {
      if (current.orderId !== undefined) return;
      await deps.ledger.linkOrder(deps.source, orderId, record.pk);
      const withLines = orderLines ? ((await deps.ledger.update(record.pk, owner, { orderLines })) ?? current) : current;
      const taken = await clawBack(deps, withLines, owner, orderId);
      if (!taken.ok) throw new Error(`redemption not clawed back yet: ${taken.refusal.kind}`);
      usage.metrics?.addMetric(METRIC.redemptionClawbacks, 'Count', 1);
      deps.logger?.warn('redeemed points taken again: a returned code was used', {
        source: deps.source,
        points: taken.record.clawedBackPoints ?? 0,
        shortfall: taken.record.clawbackShortfall ?? 0,
      });
    },
    { final: true },
  );
}

/** Every line's quantity refunded: the order is refunded in full (unknown lines: never, only a cancellation). */
export function refundedInFull(orderLines: Record<string, number> | undefined, refunded: Record<string, Record<string, number>>): boolean {
  if (!orderLines || Object.keys(orderLines).length === 0) return false;
  const back = new Map<string, number>();
  for (const lines of Object.values(refunded)) for (const [id, q] of Object.entries(lines)) back.set(id, (back.get(id) ?? 0) + q);
  return Object.entries(orderLines).every(([id, quantity]) => (back.get(id) ?? 0) >= quantity);
}

async function returnOnRefund(deps: RedemptionDeps, event: RefundEvent): Promise<void> {
  const policy = deps.settings.onRefund;
  // A cancelled order used nothing: its code's points come back whatever the refund policy.
  if (policy === 'never' && !event.refundsRemainder) return;
  const open = (await deps.ledger.byOrder(deps.source, event.orderId)).filter(
    (r) => (r.state === 'used' || r.state === 'reserved') && r.orderId === event.orderId,
  );
  const why = event.refundsRemainder ? 'cancelled' : 'refunded';
  for (const record of open) {
    await withLease(deps, record, async (owner, current) => {
      let at = current;
      if (policy === 'full' && !event.refundsRemainder) {
        const refundedLines = { ...current.refundedLines, [event.refundId]: linesOf(event.refundedLines) ?? {} };
        const full = refundedInFull(current.orderLines, refundedLines);
        const kept = await deps.ledger.update(record.pk, owner, { refundedLines }, { release: !full });
        if (!full || !kept) return;
        at = kept;
      }
      const back = await giveBack(deps, at, owner, { state: 'returned', returnReason: why });
      if (!back.ok) throw new Error(`redemption not given back yet: ${back.refusal.kind}`);
    });
  }
}

/** Runs `work` under the record's lease; a lease held elsewhere is a retry of the event. */
async function withLease(
  deps: RedemptionDeps,
  record: RedemptionRecord,
  work: (owner: string, current: RedemptionRecord) => Promise<void>,
  options: { final?: boolean } = {},
) {
  const owner = randomUUID();
  const claimed = await deps.ledger.claim(record.pk, owner, options);
  if (!claimed) {
    const now = await deps.ledger.get(record.pk);
    if (now && !options.final && (now.state === 'used' || now.state === 'returned' || now.state === 'failed')) return;
    if (now && options.final && now.orderId !== undefined) return;
    throw new Error('redemption record busy: retried');
  }
  await work(owner, claimed);
}
