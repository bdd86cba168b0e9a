import { LATER_SOURCE } from './provisional.js';
import { CHAOS_RANKS, type ChaosCustomer, type Scenario } from './scenario.js';

export { CHAOS_CAMPAIGN } from './scenario.js';

/**
 * The independent model: what the membership service must show at the end, computed from the
 * scenario's events alone (rank rates as configured in the emulator, the Open API's rounding down, and
 * the refund rule below), never from the product's code.
 *
 * - purchase credit = floor(eligible x rate of the customer's rank), for a registered customer, a
 *   non-test order with an amount; otherwise nothing. A customer linked or enrolled mid-run (links.ts)
 *   is credited every such order exactly once, whether it came before the link or after (an enrolled
 *   one: Shopify orders only, at the service's default rank);
 * - refunds of an order debit in total floor(credit x min(refunded, eligible) / eligible), where a
 *   cancellation refunds everything; a full refund therefore debits exactly the credit. The split
 *   between the refunds of one order depends on the order in which they are processed, the total does not;
 * - a campaign (CHAOS_CAMPAIGN, ポイント2倍 on Shopify orders of at least its minAmount) grants a bonus the size
 *   of the credit, and the refunds take it back by the same rule;
 * - an order of the source earning at fulfilment (provisional.ts) ends the same, whether its refunds came
 *   before the moment or after it; refunded in full, it nets nothing, with no entries at all when the
 *   refunds came first (`provisional`: either is right).
 */

export interface ExpectedOrder {
  source: string;
  orderId: string;
  customer: number | null;
  eligible: number;
  credit: number;
  /** Sum of the debits of all refunds of the order. */
  debitTotal: number;
  /** The campaign bonus (its own entry), and what the refunds take back of it. */
  bonus: number;
  bonusBack: number;
  refundIds: string[];
  /** Whether the purchase is credited at all (false: skipped, not found, no purchase). */
  credited: boolean;
  /** Earned at fulfilment (provisional.ts): refunded in full before it, it is never credited (`not_earned`). */
  provisional: boolean;
  /** Its refunds add up to the whole order (or one is a cancellation). */
  fullyRefunded: boolean;
}

export interface ExpectedCustomer {
  customer: ChaosCustomer;
  credited: number;
  debited: number;
  balance: number;
  orders: string[];
}

export interface Model {
  /** Keyed by orderId (unique across the run). */
  orders: Map<string, ExpectedOrder>;
  /** Registered customers only (the others have no balance to read). */
  customers: Map<number, ExpectedCustomer>;
  totals: { credited: number; debited: number };
}

/** floor(amount x rate) with the rate's exact decimal value (no binary floating-point error). */
export function pointsFor(amount: number, rate: number): number {
  const [whole = '0', fraction = ''] = String(rate).split('.');
  if (String(rate).includes('e')) throw new Error(`rate ${rate} must be a plain decimal`);
  const denominator = 10n ** BigInt(fraction.length);
  const numerator = BigInt(whole + fraction);
  return Number((BigInt(amount) * numerator) / denominator);
}

/** Total debit of an order's refunds: floor(credit x min(refunded, eligible) / eligible). */
export function debitTotalFor(credit: number, eligible: number, refunded: number): number {
  if (credit <= 0 || eligible <= 0) return 0;
  const share = BigInt(Math.min(refunded, eligible));
  return Number((BigInt(credit) * share) / BigInt(eligible));
}

export function buildModel(scenario: Scenario): Model {
  const orders = new Map<string, ExpectedOrder>();
  for (const event of scenario.events) {
    const order = orders.get(event.orderId) ?? {
      source: event.source,
      orderId: event.orderId,
      customer: event.customer,
      eligible: 0,
      credit: 0,
      debitTotal: 0,
      bonus: 0,
      bonusBack: 0,
      refundIds: [],
      credited: false,
      provisional: event.source === LATER_SOURCE,
      fullyRefunded: false,
    };
    if (event.kind === 'purchase') {
      const customer = event.customer === null ? undefined : scenario.customers[event.customer];
      order.eligible = event.amount;
      // An enrolled shop customer becomes a member by their Shopify id only: other sources stay unknown.
      const member = customer?.registered === true || (customer?.linkLater === 'enrolment' && event.source === 'shopify');
      order.credited = member && !event.test && event.amount > 0;
      order.credit = order.credited && customer ? pointsFor(event.amount, CHAOS_RANKS[customer.rank]) : 0;
      const campaign = scenario.campaign;
      order.bonus =
        campaign && (event.source === 'shopify' || event.source === LATER_SOURCE) && event.amount >= campaign.minAmount ? order.credit : 0;
    } else {
      order.refundIds.push(event.refundId);
    }
    orders.set(event.orderId, order);
  }

  for (const order of orders.values()) {
    const refunds = scenario.events.filter((e) => e.kind === 'refund' && e.orderId === order.orderId);
    const cancelled = refunds.some((r) => r.kind === 'refund' && r.cancel);
    const refunded = cancelled ? order.eligible : refunds.reduce((sum, r) => sum + r.amount, 0);
    order.fullyRefunded = refunds.length > 0 && refunded >= order.eligible;
    order.debitTotal = debitTotalFor(order.credit, order.eligible, refunded);
    order.bonusBack = debitTotalFor(order.bonus, order.eligible, refunded);
  }

  const customers = new Map<number, ExpectedCustomer>();
  for (const customer of scenario.customers) {
    if (customer.registered || customer.linkLater === 'enrolment')
      customers.set(customer.index, { customer, credited: 0, debited: 0, balance: 0, orders: [] });
  }
  const totals = { credited: 0, debited: 0 };
  for (const order of orders.values()) {
    const expected = order.customer === null ? undefined : customers.get(order.customer);
    if (!expected) continue;
    expected.orders.push(order.orderId);
    expected.credited += order.credit + order.bonus;
    expected.debited += order.debitTotal + order.bonusBack;
    expected.balance += order.credit + order.bonus - order.debitTotal - order.bonusBack;
    totals.credited += order.credit + order.bonus;
    totals.debited += order.debitTotal + order.bonusBack;
  }
  return { orders, customers, totals };
}

/** Redemptions (redemption-clicks.ts): a code held (used in an order) keeps its points off; a returned one nets 0. */
export function applyRedemptions(model: Model, held: Map<number, number>): void {
  for (const [index, points] of held) {
    const expected = model.customers.get(index);
    if (expected) expected.balance -= points;
  }
}
