import type { PointsEvent, PurchaseEvent, RefundEvent } from '../../events/index.js';
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
} from '../../money/index.js';
import { renderTitle } from '../index.js';
import {
  chainState,
  DETACHED_REFUND_ID,
  MAX_SUPPLEMENTS,
  type OrderFacts,
  remainderOf,
  type SaleChain,
  SUPERSEDED_REFUND_ID,
  supplementId,
  supplementOf,
  unbookedAdjustment,
} from './chain.js';
import { type PointsSpentRule, transactionAmount } from './money.js';
import { type SpendStep, type SpendTruth, spendEvents } from './spend.js';
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
 *   (chain.ts), T the amount edits have taken off its amount; it adds T less the largest T already seen
 *   on that purchase, so repeats and reorderings add nothing;
 * - an edit raising it above what is left credited: the supplementary purchase `<id>/up-<k>` on the new
 *   total, then (the next round, once it is credited) the refund `superseded` of the purchases before it;
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
  /** Absent (events queued before these settings): division 1 earns, every store, external id, 31 days. */
  earningDivisions?: readonly string[] | undefined;
  storeIds?: readonly string[] | null | undefined;
  memberLookup?: 'external_id' | 'unique_id' | undefined;
  lateMemberDays?: number | undefined;
  /** `membership`: the till's spent points come off the membership balance (spend.ts); absent: `ignore`. */
  tillPoints?: 'ignore' | 'membership' | undefined;
}

export interface Resolution {
  events: PointsEvent[];
  /** Something the state asks for that is not done (a sale raised more often than the chain allows). */
  note?: string;
  /** A supplement is among the events: resolve again once it ran, to take back what it supersedes. */
  again?: boolean;
}

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

const MAX_UNITS = 999_999_999n;
export const CANCEL_REFUND_ID = 'cancel';
const NO_CHAIN: SaleChain = { sale: undefined, supplements: [] };

const isCancelled = (tx: SmaregiTransaction) => tx.cancelDivision === '1' || tx.disposeDivision === '1';
const magnitude = (d: Decimal): Decimal => (d.units < 0n ? negateDecimal(d) : d);

export function resolveTransaction(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  tx: SmaregiTransaction,
  facts: ResolveFacts,
): Resolution {
  const earning = resolveEarning(thin, settings, tx, facts);
  if (settings.tillPoints !== 'membership' || tx.returnSales === '1') return earning;
  // The till's points spent: after the earning's events (never netted with them).
  const cancelling = tx.disposeDivision === '2' ? linkOf(tx.disposeServerTransactionHeadId) : undefined;
  const key = { externalKey: settings.externalKey, ...(settings.memberLookup === 'unique_id' ? { lookup: 'unique_id' as const } : {}) };
  const spend = cancelling
    ? spendEvents(thin, cancelling, facts.linkedSpends ?? [], undefined, key)
    : spendEvents(purchaseOf(thin, settings, tx), tx.transactionHeadId, facts.spends ?? [], spendTruth(thin, settings, tx), key);
  const note = [earning.note, spend.note].filter(Boolean).join('; ');
  // After the sale's own purchase, before its refunds: a void gives the spent points back before taking
  // the earning back, so a member who spent everything ends where they began.
  const [head, ...tail] = earning.events;
  const ownPurchase = head?.type === 'purchase' && head.orderId === tx.transactionHeadId;
  return {
    events: ownPurchase ? [head, ...spend.events, ...tail] : [...spend.events, ...earning.events],
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
    const sale = facts.original ? purchaseOf(thin, settings, facts.original) : undefined;
    return { events: cancelChain(thin, settings, tx, target, sale, facts.linked ?? NO_CHAIN) };
  }
  if (tx.returnSales === '1') {
    const target = linkOf(tx.disposeServerTransactionHeadId);
    if (!target || target === tx.transactionHeadId) return { events: [unlinkedReturn(thin, settings, tx)] };
    const live = chainState(facts.linked ?? NO_CHAIN)?.live.orderId ?? target;
    return { events: [refundOf(thin, settings, live, `return-${tx.transactionHeadId}`, tx, false)] };
  }
  const purchase = purchaseOf(thin, settings, tx);
  // Voided: the sale and its void, even when the sale was never seen, so the ledger shows both (the
  // member's balance ends where it began either way) and a late delivery of the sale finds it done.
  if (isCancelled(tx)) return { events: cancelChain(thin, settings, tx, tx.transactionHeadId, purchase, facts.chain) };
  return adjusted(thin, settings, tx, purchase, facts.chain);
}

/**
 * The refund `cancel` of every purchase of the sale's chain (what is left of each: the sale's credits
 * together), after the sale's purchase when known and a supplement left unfinished, so none waits for
 * a purchase nobody runs.
 */
function cancelChain(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  tx: SmaregiTransaction,
  saleId: string,
  sale: PurchaseEvent | undefined,
  chain: SaleChain,
): PointsEvent[] {
  const cancel = refundOf(thin, settings, saleId, CANCEL_REFUND_ID, tx, true);
  // A sale recorded as earning nothing (no member, not a sale) has nothing to take back; its refund would
  // only wait for a member a voided sale never gets.
  if (chain.sale?.state === 'done' && chain.sale.outcome === 'skipped') return sale ? [sale] : [];
  const unfinished = sale ? chainState(chain)?.unfinished : undefined;
  return [
    ...(sale ? [sale] : []),
    ...(sale && unfinished ? [rerun(sale, unfinished, settings.rule)] : []),
    cancel,
    ...chain.supplements.map((o) => remainderOf(cancel, o.orderId, CANCEL_REFUND_ID)),
  ];
}

/** An unfinished supplement, run again on the amount it was claimed for. */
function rerun(sale: PurchaseEvent, order: OrderFacts, rule: AmountRule): PurchaseEvent {
  const amount = parseDecimal(order.eligibleExact ?? '') ?? ZERO;
  return supplementOf(sale, order.orderId, amount, units(amount, rule));
}

/** A credited sale whose current amount differs from what is left credited: the supplement or the refund of the difference. */
function adjusted(
  thin: PurchaseEvent,
  settings: SmaregiStateSettings,
  tx: SmaregiTransaction,
  purchase: PurchaseEvent,
  chain: SaleChain,
): Resolution {
  const state = chainState(chain);
  if (!state) return { events: [purchase] };
  if (state.unfinished) return { events: [purchase, rerun(purchase, state.unfinished, settings.rule)], again: true };
  const template = refundOf(thin, settings, tx.transactionHeadId, SUPERSEDED_REFUND_ID, tx, true);
  const events: PointsEvent[] = [purchase, ...state.toSupersede.map((o) => remainderOf(template, o.orderId, SUPERSEDED_REFUND_ID))];
  const member = purchase.customer?.externalId;
  // The member was taken off the sale (staff moved them to another sale): what it earned goes back.
  if (!member) return { events: [purchase, ...state.active.map((o) => remainderOf(template, o.orderId, DETACHED_REFUND_ID))] };
  // A lowering edit's refund left in doubt counts as taken off below: sent again, the refund protocol settles it.
  const inDoubt = unbookedAdjustment(state.live);
  if (inDoubt) {
    const refund = refundOf(thin, settings, state.live.orderId, inDoubt.refundId, tx, false);
    events.push({ ...refund, refundAmount: units(inDoubt.adds, settings.rule), refundExact: formatDecimal(inDoubt.adds) });
  }
  const now = parseDecimal(purchase.eligibleExact ?? '0') ?? ZERO;
  // Another member now: the sale's points move to them (a supplement credited to them, then the earlier credits taken back).
  const moved = state.live.externalId !== undefined && state.live.externalId !== member;
  const direction = compareDecimals(now, moved || state.active.length === 0 ? ZERO : state.net);
  if (direction > 0) {
    // A supplement that ended uncredited (the member withdrew, points unavailable) is not tried again for the same amount.
    const failedFor = state.failed ? parseDecimal(state.failed.eligibleExact ?? '') : undefined;
    if (failedFor && compareDecimals(failedFor, now) === 0 && state.failed?.externalId === member) return { events };
    if (chain.supplements.length >= MAX_SUPPLEMENTS) {
      const note = `transaction ${tx.transactionHeadId} was raised more than ${MAX_SUPPLEMENTS} times: the increase to ${formatDecimal(now)} is not credited`;
      return { events, note };
    }
    const id = supplementId(tx.transactionHeadId, chain.supplements.length + 1);
    return { events: [...events, supplementOf(purchase, id, now, units(now, settings.rule))], again: true };
  }
  if (direction < 0) {
    const off = subtractDecimals(state.liveEligible, now);
    const adds = subtractDecimals(state.net, now);
    const refund = refundOf(thin, settings, state.live.orderId, `adj-${formatDecimal(off)}`, tx, false);
    events.push({ ...refund, refundAmount: units(adds, settings.rule), refundExact: formatDecimal(adds) });
  }
  return { events };
}

function units(amount: Decimal, rule: AmountRule): number {
  const u = toUnits(amount, 'JPY', rule);
  return Number(u > MAX_UNITS ? MAX_UNITS : u < 0n ? 0n : u);
}

/**
 * The member: the customer's code (the customer object of `with_customer=all`, else the head's own
 * `customerCode`, which is all a shop whose members live outside Smaregi sends) or its customerId.
 */
function customerOf(tx: SmaregiTransaction, settings: SmaregiStateSettings): PurchaseEvent['customer'] {
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
function occurredAt(tx: SmaregiTransaction, fallback: string): string {
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
