import type { Model } from './model.js';
import { netReversals } from './reversals.js';

/**
 * The final comparison: what the membership service shows per customer (balance and point history)
 * against the model. History entries are attributed to orders by the order id they carry (in the
 * marker or the title), so the check does not depend on the marker's exact format.
 */

export interface ObservedEntry {
  id: string;
  point: number;
  title: string | null;
  remarks: string | null;
  /** The service's time of the entry (`Y-m-d H:i:s`, its own clock), when read. */
  created_at?: string;
}

export interface ObservedCustomer {
  index: number;
  /** null: the membership service did not find the customer. */
  balance: number | null;
  history: ObservedEntry[];
}

export interface Mismatch {
  customer: number | null;
  orderId?: string;
  what: string;
}

export interface Comparison {
  mismatches: Mismatch[];
  /**
   * `doubled`: extra entries of markers found more than once (before the reversals); `reversed`: those
   * the final audit's reversals cancel (reversals.ts). The points are counted after the reversals.
   */
  observed: { credited: number; debited: number; entries: number; doubled: number; reversed: number };
}

/** Ids in the scenario are 18-digit numbers; pick every such run of digits out of a text. */
/** A redemption's deduction, its points given back or taken again (`lp1:<source>:redeem[-return|-clawback]:…`). */
const REDEMPTION_ENTRY = /^lp1:[^:]+:redeem(?:-return|-clawback)?:/;
const ID_TOKEN = /(?<![0-9])[0-9]{18}(?![0-9])/g;
/**
 * A Smaregi till spend (`<sale>/spend-<g>`) or its give-back (`…/back`), marker-encoded: its own ledger
 * order, not the sale's credit or a refund's debit. In a run every spend ends given back (smaregi.ts), so
 * they are checked on their own: per sale and generation, at most one deduction and exactly one
 * give-back of what it took, or neither (the worker read the sale after its payment was corrected).
 */
const TILL_SPEND = /%2Fspend-([0-9]+)(%2Fback)?$/i;
/**
 * A shipped share of an order earning at fulfilment (`<order>/ship-<amount>`, marker-encoded), credited as an
 * order of its own, or its take-back (its `superseded` refund). Not the order's credit or a refund's debit:
 * every share credited must be taken back exactly once (net 0) once the order earns or ends.
 */
const SHIPPED_SHARE = /:(order|refund):[0-9]+%2Fship-([0-9]+)(:superseded)?$/i;
/** The audit's settlement of a refund's clamp a double caused (`lp1:<source>:reversal:shortfall:…`): a debit of the order, not a refund's entry. */
const SETTLEMENT = /^lp1:[^:]+:reversal:shortfall%3A/i;

export function compareWithModel(model: Model, observed: ObservedCustomer[]): Comparison {
  const mismatches: Mismatch[] = [];
  const totals = { credited: 0, debited: 0, entries: 0, doubled: 0, reversed: 0 };
  const seen = new Set<number>();

  for (const customer of observed) {
    seen.add(customer.index);
    const expected = model.customers.get(customer.index);
    if (!expected) {
      mismatches.push({ customer: customer.index, what: 'observed a customer the model does not know' });
      continue;
    }
    if (customer.balance !== expected.balance) {
      mismatches.push({
        customer: customer.index,
        what: `balance ${customer.balance ?? 'not found'}, expected ${expected.balance}`,
      });
    }

    const credits = new Map<string, number[]>();
    const debits = new Map<string, number[]>();
    const spends: TillSpends = new Map();
    const shares: ShippedShares = new Map();
    const settlements = new Map<string, number>();
    // The model against the history after the audit's reversals: a doubled entry left unreversed stands and fails below.
    const netted = netReversals(customer.history);
    totals.doubled += netted.doubled;
    totals.reversed += netted.reversed;
    for (const problem of netted.problems) mismatches.push({ customer: customer.index, what: problem });
    for (const entry of netted.standing) {
      if (entry.point === 0) continue; // a zero grant moves no point; doubling it loses nothing
      // Redemptions belong to no order: redemption-clicks.ts checks each request's entries, the balance counts them.
      if (REDEMPTION_ENTRY.test(entry.remarks ?? '')) continue;
      // A till spend and its give-back are not the sale's points (checked below, netting 0).
      const spend = TILL_SPEND.exec(entry.remarks ?? '');
      const share = SHIPPED_SHARE.exec(entry.remarks ?? '');
      if (!spend && !share) {
        totals.entries += 1;
        if (entry.point > 0) totals.credited += entry.point;
        else totals.debited -= entry.point;
      }
      const text = `${entry.remarks ?? ''} ${entry.title ?? ''}`;
      const orderId = [...text.matchAll(ID_TOKEN)].map((m) => m[0]).find((token) => model.orders.has(token));
      if (orderId === undefined) {
        mismatches.push({ customer: customer.index, what: `history entry ${entry.id} (${entry.point}) belongs to no order` });
        continue;
      }
      const order = model.orders.get(orderId);
      if (order?.customer !== customer.index) {
        mismatches.push({
          customer: customer.index,
          orderId,
          what: `history entry ${entry.id} (${entry.point}) is for an order of customer ${order?.customer ?? 'none'}`,
        });
        continue;
      }
      if (spend) {
        const key = `${orderId} spend-${spend[1]}`;
        const found = spends.get(key) ?? { orderId, taken: [], back: [] };
        (spend[2] ? found.back : found.taken).push(entry.point);
        spends.set(key, found);
        continue;
      }
      if (share) {
        const key = `${orderId} ship-${share[2]}`;
        const found = shares.get(key) ?? { orderId, credited: [], back: [] };
        (share[1] === 'order' ? found.credited : found.back).push(entry.point);
        shares.set(key, found);
        continue;
      }
      if (SETTLEMENT.test(entry.remarks ?? '')) settlements.set(orderId, (settlements.get(orderId) ?? 0) + 1);
      const bucket = entry.point > 0 ? credits : debits;
      bucket.set(orderId, [...(bucket.get(orderId) ?? []), entry.point]);
    }
    mismatches.push(...tillSpendMismatches(customer.index, spends));
    mismatches.push(...shareMismatches(customer.index, shares));

    for (const orderId of expected.orders) {
      const order = model.orders.get(orderId);
      if (!order) continue;
      const credited = credits.get(orderId) ?? [];
      // Refunded in full before its moment, a provisional order never earned: no entries at all, and right.
      if (order.provisional && order.fullyRefunded && credited.length === 0 && !debits.has(orderId)) continue;
      // The credit and, in the campaign, its bonus: each its own entry.
      const expectedCredits = [order.credit, order.bonus].filter((p) => p > 0).sort((a, b) => a - b);
      if ([...credited].sort((a, b) => a - b).join(',') !== expectedCredits.join(',')) {
        mismatches.push({
          customer: customer.index,
          orderId,
          what: `credits [${credited.join(', ')}], expected [${expectedCredits.join(', ')}]`,
        });
      }
      const debited = debits.get(orderId) ?? [];
      const debitSum = -debited.reduce((sum, p) => sum + p, 0);
      if (debitSum !== order.debitTotal + order.bonusBack) {
        mismatches.push({
          customer: customer.index,
          orderId,
          what: `debits [${debited.join(', ')}] total ${debitSum}, expected total ${order.debitTotal + order.bonusBack}`,
        });
      }
      // Each refund debits the credit's share and, in the campaign, the bonus's.
      if (debited.length - (settlements.get(orderId) ?? 0) > order.refundIds.length * (order.bonus > 0 ? 2 : 1)) {
        mismatches.push({
          customer: customer.index,
          orderId,
          what: `${debited.length} debit entries for ${order.refundIds.length} refunds`,
        });
      }
    }
  }

  for (const index of model.customers.keys()) {
    if (!seen.has(index)) mismatches.push({ customer: index, what: 'customer was not read back' });
  }
  return { mismatches, observed: totals };
}

type TillSpends = Map<string, { orderId: string; taken: number[]; back: number[] }>;

/** Each till spend of a customer's sales: at most one deduction, and given back exactly (or neither). */
function tillSpendMismatches(customer: number, spends: TillSpends): Mismatch[] {
  const mismatches: Mismatch[] = [];
  for (const [key, { orderId, taken, back }] of spends) {
    const given = back.reduce((sum, p) => sum + p, 0);
    const took = -taken.reduce((sum, p) => sum + p, 0);
    if (taken.length > 1 || back.length !== taken.length || given !== took) {
      mismatches.push({
        customer,
        orderId,
        what: `till ${key}: deductions [${taken.join(', ')}], given back [${back.join(', ')}], expected one of each netting 0 (or none)`,
      });
    }
  }
  return mismatches;
}

type ShippedShares = Map<string, { orderId: string; credited: number[]; back: number[] }>;

/** Each shipped share of a customer's orders: at most one credit, taken back exactly once (net 0), or neither. */
function shareMismatches(customer: number, shares: ShippedShares): Mismatch[] {
  const mismatches: Mismatch[] = [];
  for (const [key, { orderId, credited, back }] of shares) {
    const net = [...credited, ...back].reduce((sum, p) => sum + p, 0);
    if (credited.length > 1 || back.length !== credited.length || net !== 0) {
      mismatches.push({
        customer,
        orderId,
        what: `share ${key}: credits [${credited.join(', ')}], taken back [${back.join(', ')}], expected one of each netting 0 (or none)`,
      });
    }
  }
  return mismatches;
}
