import type { PointsEvent, PurchaseEvent, RefundEvent } from '../events/index.js';
import {
  type AmountRule,
  compareDecimals,
  type Decimal,
  formatDecimal,
  negateDecimal,
  parseDecimal,
  subtractDecimals,
  toUnits,
  ZERO,
} from '../money/index.js';
import { renderTitle } from '../sources/index.js';
import { type PointsSpentRule, transactionAmount } from './money.js';
import type { SmaregiTransaction } from './transaction.js';

/**
 * Turns a Smaregi transaction's CURRENT state into the canonical events that bring the member's points
 * for it to what that state earns, whatever action the webhook named: Smaregi's webhooks carry ids only,
 * and which actions a void or a return sends is not published. Every event has a stable id, so the
 * ledger's exactly-once protocol makes a repeat of any of them change nothing:
 *
 * - a sale: the purchase of the transaction (`orderId` = transactionHeadId), on its amount without tax;
 * - a void (`cancelDivision` 1) or the original of a return-cancellation (`disposeDivision` 1): the
 *   purchase, then the refund `cancel` taking back whatever is left of its credit (a void first seen
 *   voided is credited and taken back at once: the ledger shows both, the balance does not move);
 * - the cancelling record of a return-cancellation (`disposeDivision` 2): the same refund `cancel` on
 *   the sale it names (`disposeServerTransactionHeadId`), so the record and the original's own edit
 *   take back once between them; the original's purchase goes first when it was fetched;
 * - an edit lowering a credited sale's amount: the refund `adj-<T>`, T the amount edits have taken off in
 *   all; it adds T less the largest T already seen on the order, so repeats and reorderings add nothing;
 * - a plain return (`returnSales` 1): linked to no sale in Smaregi's data, so it cannot be matched
 *   without guessing; it is recorded as the unlinked refund `unlinked/<id>` (skipped, queryable),
 *   unless it names its sale in `disposeServerTransactionHeadId`, when it refunds its amount there.
 */
export interface SmaregiStateSettings {
  externalKey: string;
  customerField: 'customerCode' | 'customerId';
  rule: AmountRule;
  pointsSpent: PointsSpentRule;
  pointTitle: string;
  refundTitle: string;
}

/** What the ledger holds of the sale's order (undefined: never seen). */
export interface OrderFacts {
  state: 'stub' | 'pending' | 'done';
  outcome?: string | undefined;
  eligibleExact?: string | undefined;
  refundIds: readonly string[];
}

export interface Resolution {
  events: PointsEvent[];
  /** Something the state asks for that the protocol does not do (an edit raising a credited sale). */
  note?: string;
}

const MAX_UNITS = 999_999_999n;
export const CANCEL_REFUND_ID = 'cancel';
const ADJUSTMENT = /^adj-(\d{1,18}(?:\.\d{1,12})?)$/;

const isCancelled = (tx: SmaregiTransaction) => tx.cancelDivision === '1' || tx.disposeDivision === '1';
const magnitude = (d: Decimal): Decimal => (d.units < 0n ? negateDecimal(d) : d);

export function resolveTransaction(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  tx: SmaregiTransaction,
  facts: { order: OrderFacts | undefined; original?: { tx: SmaregiTransaction; order: OrderFacts | undefined } },
): Resolution {
  const { order, original } = facts;
  if (tx.disposeDivision === '2') {
    const target = tx.disposeServerTransactionHeadId;
    if (!target || target === tx.transactionHeadId) return { events: [unlinkedReturn(thin, settings, tx)] };
    const sale = original
      ? resolveTransaction(thin, settings, original.tx, { order: original.order }).events.filter((e) => e.type === 'purchase')
      : [];
    const cancel = refundOf(thin, settings, target, CANCEL_REFUND_ID, tx, true);
    return { events: [...sale, cancel] };
  }
  if (tx.returnSales === '1') {
    const target = tx.disposeServerTransactionHeadId;
    if (!target || target === tx.transactionHeadId) return { events: [unlinkedReturn(thin, settings, tx)] };
    return { events: [refundOf(thin, settings, target, `return-${tx.transactionHeadId}`, tx, false)] };
  }
  const purchase = purchaseOf(thin, settings, tx);
  // Voided: the sale and its void, even when the sale was never seen, so the ledger shows both (the
  // member's balance ends where it began either way) and a late delivery of the sale finds it done.
  if (isCancelled(tx)) return { events: [purchase, refundOf(thin, settings, tx.transactionHeadId, CANCEL_REFUND_ID, tx, true)] };
  return adjusted(thin, settings, tx, purchase, order);
}

/** A credited sale whose current amount is below what it was credited on: the refund of the difference. */
function adjusted(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  tx: SmaregiTransaction,
  purchase: PurchaseEvent,
  order: OrderFacts | undefined,
): Resolution {
  const credited = order?.state === 'done' && order.outcome === 'credited' ? parseDecimal(order.eligibleExact ?? '') : undefined;
  const now = parseDecimal(purchase.eligibleExact ?? '0') ?? ZERO;
  if (!credited) return { events: [purchase] };
  if (compareDecimals(now, credited) > 0) {
    return {
      events: [purchase],
      note: `transaction ${tx.transactionHeadId} now earns on ${formatDecimal(now)}, more than the ${formatDecimal(credited)} it was credited on: the increase is not credited`,
    };
  }
  const takenOff = subtractDecimals(credited, now);
  const seen = order?.refundIds.map((id) => ADJUSTMENT.exec(id)?.[1]).filter((t): t is string => t !== undefined) ?? [];
  const largest = seen.map((t) => parseDecimal(t) ?? ZERO).reduce((a, b) => (compareDecimals(a, b) >= 0 ? a : b), ZERO);
  const adds = subtractDecimals(takenOff, largest);
  if (compareDecimals(adds, ZERO) <= 0) return { events: [purchase] };
  const refund = refundOf(thin, settings, tx.transactionHeadId, `adj-${formatDecimal(takenOff)}`, tx, false);
  return { events: [purchase, { ...refund, refundAmount: units(adds, settings.rule), refundExact: formatDecimal(adds) }] };
}

function units(amount: Decimal, rule: AmountRule): number {
  const u = toUnits(amount, 'JPY', rule);
  return Number(u > MAX_UNITS ? MAX_UNITS : u < 0n ? 0n : u);
}

function customerOf(tx: SmaregiTransaction, settings: SmaregiStateSettings): PurchaseEvent['customer'] {
  if (!tx.customerId) return null;
  const id = settings.customerField === 'customerId' ? tx.customerId : tx.customer?.customerCode;
  return id ? { externalKey: settings.externalKey, externalId: id } : null;
}

const occurredAt = (tx: SmaregiTransaction, fallback: string) =>
  Number.isNaN(Date.parse(tx.transactionDateTime)) ? fallback : tx.transactionDateTime;

function purchaseOf(thin: PurchaseEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): PurchaseEvent {
  const measured = transactionAmount(tx, settings.pointsSpent);
  const amount = compareDecimals(measured.amount, ZERO) > 0 ? measured.amount : ZERO;
  const id = tx.transactionHeadId;
  const { stateFrom: _, ...rest } = thin;
  return {
    ...rest,
    eventId: `${thin.source}:transaction:${id}`,
    orderId: id,
    customer: customerOf(tx, settings),
    currency: 'JPY',
    occurredAt: occurredAt(tx, thin.occurredAt),
    pointTitle: renderTitle(settings.pointTitle, { order: id, orderId: id, source: thin.source }),
    eligibleAmount: units(amount, settings.rule),
    eligibleExact: formatDecimal(amount),
    terms: { basis: 'subtotal_excluding_tax', taxesIncluded: measured.taxesIncluded, rule: settings.rule },
  };
}

function refundOf(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  orderId: string,
  refundId: string,
  tx: SmaregiTransaction,
  remainder: boolean,
): RefundEvent {
  const amount = magnitude(transactionAmount(tx, settings.pointsSpent).amount);
  return {
    type: 'refund',
    eventId: `${thin.source}:refund:${orderId}:${refundId}`,
    source: thin.source,
    orderId,
    refundId,
    customer: null,
    currency: 'JPY',
    occurredAt: occurredAt(tx, thin.occurredAt),
    pointTitle: renderTitle(settings.refundTitle, { order: orderId, orderId, source: thin.source }),
    test: false,
    delivery: thin.delivery,
    refundAmount: units(amount, settings.rule),
    refundExact: formatDecimal(amount),
    refundsRemainder: remainder,
  };
}

function unlinkedReturn(thin: PurchaseEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): RefundEvent {
  return { ...refundOf(thin, settings, 'unlinked', tx.transactionHeadId, tx, false), unlinked: true };
}
