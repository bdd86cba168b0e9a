import { createRandom, type Random } from './prng.js';
import { addSmaregi } from './smaregi.js';
import { addSquare } from './square.js';
import { addLinks } from './links-scenario.js';
import { addProvisional } from './provisional.js';
import {
  CHAOS_RANKS,
  type ChaosCustomer,
  type DeliveryStep,
  type EventSpec,
  type RankName,
  type RefundSpec,
  type Scenario,
  type ScenarioOptions,
  type SourceName,
} from './scenario-types.js';

/**
 * The seeded scenario of a chaos run: customers, the business events (purchases, partial and full
 * refunds, cancellations) and the order in which the senders deliver them, with duplicates,
 * reorderings and concurrent copies. Pure data from the seed: the same seed gives the same scenario.
 */

export * from './scenario-types.js';

/** Probabilities, in one place so a reader sees the mix at a glance. */
const MIX = {
  posShare: 0.4,
  noCustomer: 0.05,
  unregisteredCustomer: 0.06,
  testOrder: 0.03,
  zeroAmount: 0.03,
  orderWithRefunds: 0.4,
  cancelAsLastRefund: 0.3,
  fullAsLastRefund: 0.3,
  orphanRefund: 0.02,
  refundBeforePurchase: 0.12,
  swapNeighbours: 0.05,
  senderRetry: 0.1,
  resendNewDeliveryId: 0.06,
  concurrentCopy: 0.05,
} as const;

/** The run's campaign (issue 53): 2x on the Shopify orders (both sources) of at least 250 yen, the whole run long. */
export const CHAOS_CAMPAIGN = {
  id: 'chaos-double',
  title: 'ポイント2倍（カオス）',
  from: '2000-01-01T00:00:00+09:00',
  to: '2100-01-01T00:00:00+09:00',
  sources: ['shopify', 'shopify-later'],
  minAmount: '250',
  multiplier: '2',
} as const;

export function generateScenario(options: ScenarioOptions): Scenario {
  if (!Number.isInteger(options.events) || options.events < 1) {
    throw new Error(`events must be a positive integer, got ${options.events}`);
  }
  const random = createRandom(options.seed);
  const customers = makeCustomers(random.fork('customers'), Math.max(4, Math.ceil(options.events / 6)));
  const events = makeEvents(random.fork('events'), customers, options.events);
  const { deliveries, duplicates, concurrentDuplicates, reordered } = makeDeliveries(random.fork('deliveries'), events);
  addSquare(random.fork('square'), events, deliveries);
  addSmaregi(random.fork('smaregi'), events);
  const links = addLinks(random.fork('links'), customers, events, deliveries);
  const provisional =
    options.provisional === false
      ? { orders: 0, fulfilments: 0, partials: 0 }
      : addProvisional(random.fork('provisional'), customers, events, deliveries);
  const refunds = events.filter((e): e is RefundSpec => e.kind === 'refund');
  return {
    seed: options.seed,
    customers,
    events,
    deliveries,
    links,
    campaign: { minAmount: Number(CHAOS_CAMPAIGN.minAmount) },
    counts: {
      purchases: events.length - refunds.length,
      refunds: refunds.length,
      cancellations: refunds.filter((r) => r.cancel).length,
      orphanRefunds: refunds.filter((r) => r.orphan).length,
      duplicates,
      concurrentDuplicates,
      reordered,
      links: links.filter((l) => l.via === 'app_proxy').length,
      enrolments: links.filter((l) => l.via === 'enrolment').length,
      provisional: provisional.orders,
      fulfilments: provisional.fulfilments,
      partials: provisional.partials,
    },
  };
}

function makeCustomers(random: Random, count: number): ChaosCustomer[] {
  const ranks = Object.keys(CHAOS_RANKS) as RankName[];
  const seen = new Set<string>();
  const unique = (make: () => string): string => {
    for (;;) {
      const value = make();
      if (!seen.has(value)) {
        seen.add(value);
        return value;
      }
    }
  };
  return Array.from({ length: count }, (_, index) => ({
    index,
    loginId: `chaos-${index}`,
    rank: random.pick(ranks),
    // 19 digits starting with 7..9: above 2^53, so a lossy JSON parse would find another customer.
    shopifyId: unique(() => `${random.int(7, 9)}${random.digits(18)}`),
    posCard: unique(() => `PC-${random.digits(10)}`),
    registered: true,
  }));
}

function makeEvents(random: Random, customers: ChaosCustomer[], total: number): EventSpec[] {
  const events: EventSpec[] = [];
  const ids = new Set<string>();
  // Order and refund ids are unique across the run and long enough that one never appears inside
  // another's marker by accident: the comparison attributes history entries by them.
  const newId = (prefix: string): string => {
    for (;;) {
      const id = `${prefix}${random.digits(17)}`;
      if (!ids.has(id)) {
        ids.add(id);
        return id;
      }
    }
  };
  // A few customers the membership service does not know (registered: false), added on demand.
  const unregistered: ChaosCustomer[] = [];
  const pickCustomer = (): number | null => {
    const r = random.next();
    if (r < MIX.noCustomer) return null;
    if (r < MIX.noCustomer + MIX.unregisteredCustomer) {
      const index = customers.length;
      const customer: ChaosCustomer = {
        index,
        loginId: `chaos-unknown-${index}`,
        rank: 'regular',
        shopifyId: `6${random.digits(18)}`,
        posCard: `PX-${random.digits(10)}`,
        registered: false,
      };
      customers.push(customer);
      unregistered.push(customer);
      return index;
    }
    return random.int(0, customers.length - unregistered.length - 1);
  };

  while (events.length < total) {
    const source: SourceName = random.chance(MIX.posShare) ? 'pos' : 'shopify';
    const customer = pickCustomer();
    const orderId = newId(source === 'shopify' ? '5' : '4');
    if (random.chance(MIX.orphanRefund)) {
      events.push({
        kind: 'refund',
        key: `${source}:${orderId}:refund:orphan`,
        source,
        orderId,
        refundId: newId('3'),
        customer,
        amount: random.int(1, 500),
        cancel: false,
        orphan: true,
      });
      continue;
    }
    const amount = random.chance(MIX.zeroAmount) ? 0 : randomAmount(random);
    const test = source === 'shopify' && random.chance(MIX.testOrder);
    events.push({ kind: 'purchase', key: `${source}:${orderId}`, source, orderId, customer, amount, test });
    if (amount === 0 || test || !random.chance(MIX.orderWithRefunds)) continue;

    let remaining = amount;
    const refundCount = random.int(1, 3);
    for (let k = 0; k < refundCount && remaining > 0 && events.length < total; k += 1) {
      const last = k === refundCount - 1;
      // Shopify: orders/cancelled (refund id `cancel`); POS: a full return (a void) with its own id.
      const cancel = last && random.chance(MIX.cancelAsLastRefund);
      const full = last && !cancel && random.chance(MIX.fullAsLastRefund);
      const refundAmount = cancel || full ? remaining : random.int(1, Math.max(1, Math.floor(remaining / 2)));
      const refundId = cancel && source === 'shopify' ? 'cancel' : newId('3');
      events.push({
        kind: 'refund',
        key: `${source}:${orderId}:refund:${refundId}`,
        source,
        orderId,
        refundId,
        customer,
        amount: refundAmount,
        cancel,
        orphan: false,
      });
      remaining -= refundAmount;
    }
  }
  return events;
}

/** Mostly everyday amounts, sometimes large ones (up to 10^7 units). */
function randomAmount(random: Random): number {
  const r = random.next();
  if (r < 0.7) return random.int(1, 300);
  if (r < 0.95) return random.int(300, 20_000);
  return random.int(20_000, 10_000_000);
}

function makeDeliveries(
  random: Random,
  events: EventSpec[],
): { deliveries: DeliveryStep[]; duplicates: number; concurrentDuplicates: number; reordered: number } {
  // Timeline: events of one order stay in order (purchase, then refunds); orders interleave.
  const order: number[] = [];
  const byOrder = new Map<string, number[]>();
  events.forEach((event, index) => {
    const list = byOrder.get(event.orderId) ?? [];
    list.push(index);
    byOrder.set(event.orderId, list);
  });
  const pending = [...byOrder.values()];
  while (pending.length > 0) {
    // Pick among the next few orders so refunds arrive a little after their purchase, mixed with others.
    const slot = random.int(0, Math.min(pending.length, 4) - 1);
    const queue = pending[slot] as number[];
    order.push(queue.shift() as number);
    if (queue.length === 0) pending.splice(slot, 1);
  }

  let reordered = 0;
  // A refund overtakes its purchase (the sender was offline, or Shopify delivered out of order).
  for (let i = 0; i < order.length; i += 1) {
    const refundIndex = order[i] as number;
    const event = events[refundIndex] as EventSpec;
    if (event.kind !== 'refund' || event.orphan || !random.chance(MIX.refundBeforePurchase)) continue;
    const purchaseAt = order.findIndex((e) => {
      const other = events[e] as EventSpec;
      return other.kind === 'purchase' && other.orderId === event.orderId;
    });
    if (purchaseAt >= 0 && purchaseAt < i) {
      order.splice(i, 1);
      order.splice(purchaseAt, 0, refundIndex);
      reordered += 1;
    }
  }
  for (let i = 0; i + 1 < order.length; i += 1) {
    if (random.chance(MIX.swapNeighbours)) {
      const a = order[i] as number;
      order[i] = order[i + 1] as number;
      order[i + 1] = a;
      reordered += 1;
    }
  }

  const deliveries: DeliveryStep[] = order.map((event) => ({
    event,
    deliveryId: `d-${random.digits(12)}`,
    copies: 1,
    kind: 'first',
  }));
  let duplicates = 0;
  let concurrentDuplicates = 0;
  const extra: Array<{ at: number; step: DeliveryStep }> = [];
  deliveries.forEach((step, position) => {
    if (random.chance(MIX.concurrentCopy)) {
      step.copies = 2;
      step.kind = 'concurrent';
      duplicates += 1;
      concurrentDuplicates += 1;
    }
    if (random.chance(MIX.senderRetry)) {
      extra.push({ at: position + random.int(1, 15), step: { ...step, copies: 1, kind: 'retry' } });
      duplicates += 1;
    }
    if (random.chance(MIX.resendNewDeliveryId)) {
      extra.push({
        at: position + random.int(1, 40),
        step: { event: step.event, deliveryId: `d-${random.digits(12)}`, copies: 1, kind: 'resend' },
      });
      duplicates += 1;
    }
  });
  // Insert from the back so earlier positions stay valid.
  extra.sort((a, b) => b.at - a.at);
  for (const { at, step } of extra) deliveries.splice(Math.min(at, deliveries.length), 0, step);
  return { deliveries, duplicates, concurrentDuplicates, reordered };
}
