import { signSquare } from '../kit/senders.js';
import type { Random } from './prng.js';
import type { ChaosCustomer, DeliveryStep, EventSpec, Scenario } from './scenario-types.js';

/**
 * Square in the chaos runs. A share of the scenario's POS orders (those naming a customer) is sold
 * through Square instead, and Square's own hazards are added to their deliveries: a payment.updated
 * without `customer_id` before the one naming the customer (asynchronous customer matching), sometimes
 * after it instead, on top of the scenario's retries (same event_id), resends (new event_id),
 * concurrent copies and refunds overtaking their payment. The model needs nothing new: the customer is
 * always named by some delivery, so the payment earns exactly as a POS sale would, once.
 */

/** The URL Square signs with the body: the stack is told it, it is not the request URL. */
export const CHAOS_SQUARE_NOTIFICATION_URL = 'https://chaos.example.com/hooks/square';

const MIX = {
  /** POS orders with a customer that are Square payments instead. */
  squareShare: 0.5,
  /** Square payments first delivered without the customer. */
  lateCustomer: 0.5,
  /** Of those, the customer-less delivery arrives after the one naming the customer. */
  customerlessAfter: 0.25,
} as const;

/** The Square customer id of a chaos customer (Square ids are letters and digits). */
export function squareCustomerId(customer: Pick<ChaosCustomer, 'posCard'>): string {
  return `SQ${customer.posCard.replace(/[^A-Za-z0-9]/g, '')}`;
}

/**
 * Moves orders to Square and adds the customer-less deliveries, in place. Returns how many payments
 * were moved and how many got a customer-less delivery. Changes nothing when no POS order qualifies.
 */
export function addSquare(random: Random, events: EventSpec[], deliveries: DeliveryStep[]): { payments: number; lateCustomers: number } {
  const moved = new Set<string>();
  for (const event of events) {
    if (event.kind === 'purchase' && event.source === 'pos' && event.customer !== null && random.chance(MIX.squareShare))
      moved.add(event.orderId);
  }
  for (const event of events) {
    if (!moved.has(event.orderId)) continue;
    event.source = 'square';
    event.key = event.key.replace(/^pos:/, 'square:');
  }
  let lateCustomers = 0;
  events.forEach((event, index) => {
    if (event.kind !== 'purchase' || event.source !== 'square' || !random.chance(MIX.lateCustomer)) return;
    const first = deliveries.findIndex((d) => d.event === index);
    if (first < 0) return;
    const after = random.chance(MIX.customerlessAfter);
    const step: DeliveryStep = { event: index, deliveryId: `d-${random.digits(12)}`, copies: 1, kind: 'resend', withoutCustomer: true };
    deliveries.splice(after ? first + 1 + random.int(0, 5) : first, 0, step);
    lateCustomers += 1;
  });
  return { payments: moved.size, lateCustomers };
}

export interface SquareRequest {
  path: '/webhooks/square';
  headers: Record<string, string>;
  body: string;
}

/** The delivery as Square sends it: payment.updated COMPLETED or refund.updated COMPLETED, cents in USD. */
export function renderSquare(scenario: Scenario, event: EventSpec, step: DeliveryStep, signatureKey: string, nowMs: number): SquareRequest {
  const at = new Date(nowMs).toISOString();
  const cents = (units: number) => ({ amount: units * 100, currency: 'USD' });
  const customer = event.customer === null || step.withoutCustomer ? undefined : scenario.customers[event.customer];
  const object =
    event.kind === 'purchase'
      ? {
          payment: {
            id: event.orderId,
            status: 'COMPLETED',
            amount_money: cents(event.amount),
            tip_money: cents(1),
            total_money: cents(event.amount + 1),
            created_at: at,
            updated_at: at,
            location_id: 'CHAOS',
            ...(customer ? { customer_id: squareCustomerId(customer) } : {}),
          },
        }
      : {
          refund: {
            id: event.refundId,
            status: 'COMPLETED',
            amount_money: cents(event.amount),
            payment_id: event.orderId,
            created_at: at,
            updated_at: at,
          },
        };
  const type = event.kind === 'purchase' ? 'payment.updated' : 'refund.updated';
  const id = event.kind === 'purchase' ? event.orderId : event.refundId;
  const body = JSON.stringify({
    merchant_id: 'CHAOS',
    type,
    event_id: step.deliveryId,
    created_at: at,
    data: { type: event.kind === 'purchase' ? 'payment' : 'refund', id, object },
  });
  return {
    path: '/webhooks/square',
    headers: {
      'content-type': 'application/json',
      'x-square-hmacsha256-signature': signSquare(body, signatureKey, CHAOS_SQUARE_NOTIFICATION_URL),
    },
    body,
  };
}
