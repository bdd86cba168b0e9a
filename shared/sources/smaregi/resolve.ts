import type { PurchaseEvent, RefundEvent } from '../../events/index.js';
import { compareDecimals, type AmountRule, formatDecimal, negateDecimal, type Decimal, ZERO } from '../../money/index.js';
import { chainState, type EarnsEvent, earnsRefund, earnsUnits, reachEarns, type Reach, type SaleChain } from '../../points/index.js';
import { renderTitle } from '../index.js';
import { type PointsSpentRule, transactionAmount } from './money.js';
import { memberKeyOf, type SpendStep, type SpendTruth, spendEvents } from './spend.js';
import { staffChange } from './staff.js';
import { linkOf, type SmaregiTransaction } from './transaction.js';

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
 * - an edit lowering a credited sale's amount: the refund `adj-<T>` on the chain's live purchase
 *   (shared/points/chain.ts, reached by earns.ts), T the amount edits have taken off its amount; it adds T less the largest T already seen
 *   on that purchase, so repeats and reorderings add nothing;
 * - an edit raising it above what is left credited: the supplementary purchase `<id>/up-<k>` on the new
 *   total, then (the next round, once it is credited) the refund `superseded` of the purchases before it;
 * - a plain return (`returnSales` 1): linked to no sale in Smaregi's data (docs/smaregi.md, "Till
 *   returns"); it is recorded as the unlinked refund `unlinked/<id>` (skipped), and kept as a till return
 *   for an operator to settle (returns.ts), unless it names its sale in `disposeServerTransactionHeadId`,
 *   when it refunds its amount there (`return-<id>`, the refund an operator's settling makes too).
 */
export interface SmaregiStateSettings {
  externalKey: string;
  customerField: 'customerCode' | 'customerId';
  rule: AmountRule;
  pointsSpent: PointsSpentRule;
  pointTitle: string;
  refundTitle: string;
  /** Absent (events queued before these settings): division 1 earns, every store, external id, 31 days. */
  earningDivisions?: readonly string[] | undefined;
  storeIds?: readonly string[] | null | undefined;
  memberLookup?: 'external_id' | 'unique_id' | undefined;
  lateMemberDays?: number | undefined;
  /** `membership`: the till's spent points come off the membership balance (spend.ts); absent: `ignore`. */
  tillPoints?: 'ignore' | 'membership' | undefined;
  /** The sale's points are provisional until this many days after it (absent: earned at the sale). */
  earnAfterDays?: number | undefined;
}

/** The events reaching the transaction's state (the points core's reach of what its sale earns, with the till's spends). */
export type Resolution = Reach;

/** The ledger's side: the transaction's own chain and, for a return, the chain of the sale it names. */
export interface ResolveFacts {
  chain: SaleChain;
  linked?: SaleChain | undefined;
  /** The sale a return-cancellation record names, as fetched. */
  original?: SmaregiTransaction | undefined;
  /** Under `tillPoints: membership`: the transaction's till spends, and those of the sale a return-cancellation names. */
  spends?: readonly SpendStep[] | undefined;
  linkedSpends?: readonly SpendStep[] | undefined;
}

export { CANCEL_REFUND_ID } from '../../points/index.js';
/** The refund a return makes on its sale: the same id whether the return named the sale or an operator (or the match) did. */
export const returnRefundId = (returnId: string) => `return-${returnId}`;
/** A plain return that names no sale (or only itself). */
export const isUnlinkedReturn = (tx: SmaregiTransaction): boolean => {
  if (tx.returnSales !== '1' || tx.disposeDivision === '2') return false;
  const target = linkOf(tx.disposeServerTransactionHeadId);
  return !target || target === tx.transactionHeadId;
};
const NO_CHAIN: SaleChain = { sale: undefined, supplements: [] };

export const isCancelled = (tx: SmaregiTransaction) => tx.cancelDivision === '1' || tx.disposeDivision === '1';
export const magnitude = (d: Decimal): Decimal => (d.units < 0n ? negateDecimal(d) : d);

export function resolveTransaction(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  tx: SmaregiTransaction,
  facts: ResolveFacts,
): Resolution {
  const earning = resolveEarning(thin, settings, tx, facts);
  if (settings.tillPoints !== 'membership' || tx.returnSales === '1') return earning;
  // Points staff moved by hand at the till reach the membership balance once (staff.ts).
  const staff = staffChange(purchaseOf(thin, settings, tx), tx);
  if (staff.event || staff.note)
    return { ...earning, events: [...earning.events, ...(staff.event ? [staff.event] : [])], ...(staff.note ? { note: staff.note } : {}) };
  // The till's points spent: after the earning's events (never netted with them).
  const cancelling = tx.disposeDivision === '2' ? linkOf(tx.disposeServerTransactionHeadId) : undefined;
  const key = memberKeyOf(settings);
  const spend = cancelling
    ? spendEvents(thin, cancelling, facts.linkedSpends ?? [], undefined, key)
    : spendEvents(purchaseOf(thin, settings, tx), tx.transactionHeadId, facts.spends ?? [], spendTruth(thin, settings, tx), key);
  const note = [earning.note, spend.note].filter(Boolean).join('; ');
  // After the sale's own purchase, before its refunds: a void gives the spent points back before taking
  // the earning back, so a member who spent everything ends where they began.
  const [head, ...tail] = earning.events;
  const ownPurchase = head?.type === 'purchase' && head.orderId === tx.transactionHeadId;
  // An unfinished deduction is finished first and given back in the next round: what takes the earning
  // back waits for that round (a cancel run now would meet the member short, who would then keep the give-back).
  const after = spend.finishing ? [] : ownPurchase ? tail : earning.events;
  return {
    events: ownPurchase ? [head, ...spend.events, ...after] : [...spend.events, ...after],
    ...(note ? { note } : {}),
    ...(earning.again || spend.again ? { again: true } : {}),
  };
}

/** What the transaction's state spends of the member's points now (nothing when voided, without a member, or no sale). */
function spendTruth(thin: PurchaseEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): SpendTruth | undefined {
  const points = Number(tx.spendPoint ?? '0');
  if (!Number.isSafeInteger(points) || points <= 0 || isCancelled(tx)) return undefined;
  const sale = purchaseOf(thin, settings, tx);
  if (!sale.customer || sale.notEarning === 'not_a_sale' || sale.notEarning === 'layaway_pickup') return undefined;
  return { member: sale.customer, points };
}

function resolveEarning(thin: PurchaseEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction, facts: ResolveFacts): Resolution {
  if (tx.disposeDivision === '2') {
    const target = linkOf(tx.disposeServerTransactionHeadId);
    if (!target || target === tx.transactionHeadId) return { events: [unlinkedReturn(thin, settings, tx)] };
    // The cancelling record: the sale it names earns nothing now (its purchase first when it was fetched).
    const sale = facts.original ? purchaseOf(thin, settings, facts.original) : undefined;
    return { events: reachEarns(earnsOf(thin, settings, tx, target, sale, true), facts.linked ?? NO_CHAIN).events };
  }
  if (tx.returnSales === '1') {
    const target = linkOf(tx.disposeServerTransactionHeadId);
    if (!target || target === tx.transactionHeadId) return { events: [unlinkedReturn(thin, settings, tx)] };
    const live = chainState(facts.linked ?? NO_CHAIN)?.live.orderId ?? target;
    return { events: [refundOf(thin, settings, live, returnRefundId(tx.transactionHeadId), tx, false)] };
  }
  const purchase = purchaseOf(thin, settings, tx);
  // Voided: the sale and its void, even when the sale was never seen, so the ledger shows both (the
  // member's balance ends where it began either way) and a late delivery of the sale finds it done.
  return reachEarns(earnsOf(thin, settings, tx, tx.transactionHeadId, purchase, isCancelled(tx)), facts.chain);
}

/** "The sale `orderId` now earns what `purchase` says" (nothing when `cancelled`), told by the transaction `tx`. */
function earnsOf(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  tx: SmaregiTransaction,
  orderId: string,
  purchase: PurchaseEvent | undefined,
  cancelled: boolean,
): EarnsEvent {
  return {
    type: 'earns',
    source: thin.source,
    orderId,
    purchase,
    cancelled,
    refunds: {
      occurredAt: occurredAt(tx, thin.occurredAt),
      delivery: thin.delivery,
      test: false,
      title: settings.refundTitle,
      amount: magnitude(transactionAmount(tx, settings.pointsSpent).amount),
    },
    currency: 'JPY',
    rule: settings.rule,
  };
}

const units = (amount: Decimal, rule: AmountRule): number => earnsUnits({ currency: 'JPY', rule }, amount);

/**
 * The member: the customer's code (the customer object of `with_customer=all`, else the head's own
 * `customerCode`, which is all a shop whose members live outside Smaregi sends) or its customerId.
 */
export function customerOf(tx: SmaregiTransaction, settings: SmaregiStateSettings): PurchaseEvent['customer'] {
  const id =
    settings.customerField === 'customerId'
      ? tx.customerId
      : tx.customerId
        ? (tx.customer?.customerCode ?? tx.customerCode)
        : tx.customerCode;
  if (!id) return null;
  return {
    externalKey: settings.externalKey,
    externalId: id,
    ...(settings.memberLookup === 'unique_id' ? { lookup: 'unique_id' as const } : {}),
  };
}

/** Why the transaction earns nothing by the source's settings, or undefined when it may earn. */
function notEarning(tx: SmaregiTransaction, settings: SmaregiStateSettings): PurchaseEvent['notEarning'] {
  const divisions = settings.earningDivisions ?? ['1'];
  if (!divisions.includes(tx.transactionHeadDivision)) return 'not_a_sale';
  // A layaway's pick-up is the sale that earns, unless the shop lets the layaway (division 10) earn itself.
  if (linkOf(tx.layawayServerTransactionHeadId) && divisions.includes(LAYAWAY_DIVISION)) return 'layaway_pickup';
  if (settings.storeIds && !settings.storeIds.includes(tx.storeId ?? '')) return 'other_store';
  return undefined;
}

const LAYAWAY_DIVISION = '10';
const DAY_SECONDS = 86_400;

/** The sale's time: the till's (an offline till sends late), else the server's; a time without offset is Tokyo's. */
export function occurredAt(tx: SmaregiTransaction, fallback: string): string {
  for (const text of [tx.terminalTranDateTime, tx.transactionDateTime]) {
    const at = smaregiInstant(text);
    if (at) return at;
  }
  return fallback;
}

const LOCAL_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})$/;

function smaregiInstant(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const local = LOCAL_TIME.exec(text);
  const at = local ? `${local[1]}T${local[2]}+09:00` : text;
  return Number.isNaN(Date.parse(at)) ? undefined : at;
}

function purchaseOf(thin: PurchaseEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): PurchaseEvent {
  const measured = transactionAmount(tx, settings.pointsSpent);
  const amount = compareDecimals(measured.amount, ZERO) > 0 ? measured.amount : ZERO;
  const id = tx.transactionHeadId;
  const { stateFrom: _, ...rest } = thin;
  const customer = customerOf(tx, settings);
  const why = notEarning(tx, settings);
  // A sale without a member stays open to the edit that attaches one (not a voided one: it never gets one).
  const window = !customer && !why && !isCancelled(tx) ? (settings.lateMemberDays ?? 31) * DAY_SECONDS : undefined;
  return {
    ...rest,
    eventId: `${thin.source}:transaction:${id}`,
    orderId: id,
    customer,
    ...(why ? { notEarning: why } : {}),
    ...(window ? { customerMatchWindowSeconds: window } : {}),
    ...(tx.storeId ? { store: tx.storeId } : {}),
    currency: 'JPY',
    occurredAt: occurredAt(tx, thin.occurredAt),
    pointTitle: renderTitle(settings.pointTitle, { order: id, orderId: id, source: thin.source }),
    eligibleAmount: units(amount, settings.rule),
    eligibleExact: formatDecimal(amount),
    terms: { basis: 'subtotal_excluding_tax', taxesIncluded: measured.taxesIncluded, rule: settings.rule },
    // Provisional until the day: each delivery before it tells the sale's state then (`current`), which the
    // order earns on at the day (shared/points/provisional.ts, `revisionOf`).
    ...(settings.earnAfterDays ? { earnAfter: { kind: 'days' as const, days: settings.earnAfterDays, current: true as const } } : {}),
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
  return earnsRefund(earnsOf(thin, settings, tx, orderId, undefined, false), orderId, refundId, remainder);
}

/** The member a transaction names (the source's customer field, under its external key), or null. */
export const memberOf = (tx: SmaregiTransaction, settings: SmaregiStateSettings): PurchaseEvent['customer'] => customerOf(tx, settings);

/**
 * The sale of a member a privacy erase removed, as the ledger records it: naming nobody, earning nothing
 * (`skipped` / `customer_redacted`), so a replayed webhook or the reconcile finds it recorded and moves nothing.
 */
export function erasedSale(thin: PurchaseEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): PurchaseEvent {
  const { customerMatchWindowSeconds: _, ...sale } = purchaseOf(thin, settings, tx);
  return { ...sale, customer: null, notEarning: 'customer_redacted' };
}

function unlinkedReturn(thin: PurchaseEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): RefundEvent {
  return { ...refundOf(thin, settings, 'unlinked', tx.transactionHeadId, tx, false), unlinked: true };
}
