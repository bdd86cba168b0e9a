import { bareInteger as bigId, signPos } from '../kit/senders.js';
import { shopifyRequest } from '../kit/webhooks/index.js';
import type { DeliveryStep, EventSpec, PurchaseSpec, RefundSpec, Scenario } from './scenario.js';
import type { createSmaregiSender } from './smaregi.js';
import { LATER_SOURCE, orderLines } from './provisional.js';
import { renderSquare } from './square.js';

/**
 * The senders: each delivery step as the HTTP request Shopify or the POS would send, signed the way
 * each sender signs (kit/senders.ts: the senders' rules, not intake's code).
 */

export interface SenderSecrets {
  shopify: string;
  pos: string;
  /** Square's signature key (the notification URL it signs with: square.ts). */
  square: string;
  /** The Smaregi side of the run (smaregi.ts), once the stack's stand-in is up. */
  smaregi?: ReturnType<typeof createSmaregiSender>;
}

export interface WebhookRequest {
  path: `/webhooks/${string}`;
  headers: Record<string, string>;
  body: string;
  /** Sender-side state to put in place before sending (Smaregi's transaction). */
  prepare?: () => Promise<void>;
}

export const SHOP_DOMAIN = 'chaos-shop.myshopify.com';
export const CURRENCY = 'USD';

const money = (units: number): string => `${units}.00`;

/** A deterministic tax so totals differ from the eligible subtotal (tax never earns points). */
const taxOf = (units: number): number => Math.floor(units / 10);

function isoAt(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export function renderDelivery(scenario: Scenario, step: DeliveryStep, secrets: SenderSecrets, nowMs: number): WebhookRequest {
  const event = scenario.events[step.event] as EventSpec;
  if (event.source === 'square') return renderSquare(scenario, event, step, secrets.square, nowMs);
  if (event.source === 'smaregi') {
    if (!secrets.smaregi) throw new Error('chaos: a Smaregi delivery, but the run has no Smaregi stand-in');
    return secrets.smaregi.request(scenario, event, step, nowMs);
  }
  return event.source === 'shopify' || event.source === LATER_SOURCE
    ? renderShopify(scenario, event, step, secrets.shopify, nowMs)
    : renderPos(scenario, event, step, secrets.pos, nowMs);
}

function shopifyOrder(scenario: Scenario, purchase: Pick<PurchaseSpec, 'orderId' | 'customer' | 'amount' | 'test'>, atMs: number) {
  const customer = purchase.customer === null ? null : scenario.customers[purchase.customer];
  const tax = taxOf(purchase.amount);
  return {
    id: bigId(purchase.orderId),
    name: `#${purchase.orderId.slice(-6)}`,
    test: purchase.test,
    currency: CURRENCY,
    taxes_included: false,
    created_at: isoAt(atMs),
    processed_at: isoAt(atMs),
    financial_status: 'paid',
    customer: customer ? { id: bigId(customer.shopifyId) } : null,
    current_subtotal_price: money(purchase.amount),
    current_total_tax: money(tax),
    current_total_price: money(purchase.amount + tax),
    subtotal_price: money(purchase.amount),
    total_tax: money(tax),
    total_price: money(purchase.amount + tax),
    shipping_lines: [],
  };
}

function renderShopify(scenario: Scenario, event: EventSpec, step: DeliveryStep, secret: string, nowMs: number): WebhookRequest {
  let topic: string;
  let payload: unknown;
  if (event.kind === 'purchase' && step.partial !== undefined) {
    // Shipped in part: the whole order again with its lines and the fulfilment of the first `partial` of them.
    topic = 'orders/partially_fulfilled';
    payload = { ...shopifyOrder(scenario, event, nowMs), ...shippedLines(event, step.partial), fulfillment_status: 'partial' };
  } else if (event.kind === 'purchase' && step.fulfilment) {
    // Shipped: the whole order again, as every orders/* topic sends it (provisional.ts).
    topic = 'orders/fulfilled';
    payload = { ...shopifyOrder(scenario, event, nowMs), fulfillment_status: 'fulfilled' };
  } else if (event.kind === 'purchase') {
    topic = 'orders/paid';
    payload = shopifyOrder(scenario, event, nowMs);
  } else if (event.cancel) {
    topic = 'orders/cancelled';
    const purchase = purchaseOf(scenario, event);
    payload = {
      ...shopifyOrder(
        scenario,
        { orderId: event.orderId, customer: event.customer, amount: purchase?.amount ?? event.amount, test: false },
        nowMs,
      ),
      cancelled_at: isoAt(nowMs),
      financial_status: 'refunded',
    };
  } else {
    topic = 'refunds/create';
    payload = {
      id: bigId(event.refundId),
      order_id: bigId(event.orderId),
      created_at: isoAt(nowMs),
      processed_at: isoAt(nowMs),
      refund_line_items: [{ subtotal: money(event.amount), total_tax: money(taxOf(event.amount)) }],
      order_adjustments: [],
      transactions: [{ currency: CURRENCY }],
    };
  }
  const moment = step.partial !== undefined ? `:shipped-${step.partial}` : step.fulfilment ? ':fulfilled' : '';
  const eventId = `ev-${event.key}${moment}`;
  return shopifyRequest(topic, payload, secret, step.deliveryId, nowMs, { shopDomain: SHOP_DOMAIN, eventId, source: event.source });
}

/**
 * An order shipped in parts (provisional.ts): its three lines (ids derived from the order's) and one successful
 * fulfilment of the first `shipped` of them, as the intake reads the share (shared/sources/shopify/fulfilled-share.ts).
 */
function shippedLines(purchase: PurchaseSpec, shipped: number) {
  const lines = orderLines(purchase.amount).map((units, i) => ({ id: bigId(`${purchase.orderId.slice(0, 17)}${i + 1}`), units }));
  return {
    line_items: lines.map((l) => ({ id: l.id, quantity: 1, price: money(l.units), gift_card: false })),
    fulfillments: [
      {
        id: bigId(`${purchase.orderId.slice(0, 17)}9`),
        status: 'success',
        line_items: lines.slice(0, shipped).map((l) => ({ id: l.id, quantity: 1 })),
      },
    ],
  };
}

function purchaseOf(scenario: Scenario, refund: RefundSpec): PurchaseSpec | undefined {
  return scenario.events.find((e): e is PurchaseSpec => e.kind === 'purchase' && e.orderId === refund.orderId);
}

function renderPos(scenario: Scenario, event: EventSpec, step: DeliveryStep, secret: string, nowMs: number): WebhookRequest {
  // The project's POS format (shared/sources/pos/webhook.ts, docs/pos-format.md): the receipt id is the order id.
  void step; // a POS resend repeats the receipt byte for byte; its id is the receipt's
  const customer = event.customer === null ? null : scenario.customers[event.customer];
  const tax = taxOf(event.amount);
  const common = {
    storeId: 'chaos-store',
    registerId: 'till-1',
    issuedAt: isoAt(nowMs),
    currency: CURRENCY,
    customer: customer ? { cardNumber: customer.posCard } : null,
    subtotal: money(event.amount),
    taxIncluded: false,
    tax: money(tax),
    total: money(event.amount + tax),
  };
  const payload =
    event.kind === 'purchase'
      ? { type: 'sale', receiptId: event.orderId, ...common, test: event.test }
      : { type: 'return', returnId: event.refundId, originalReceiptId: event.orderId, fullReturn: event.cancel, ...common };
  const body = JSON.stringify(payload);
  return {
    path: '/webhooks/pos',
    headers: { 'content-type': 'application/json', 'x-signature': signPos(body, secret, nowMs) },
    body,
  };
}
