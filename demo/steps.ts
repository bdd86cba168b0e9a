import {
  posReturn,
  posSale,
  shopifyOrderWebhook,
  shopifyRefundCreate,
  squarePayment,
  squareRefund,
  type SquareSigning,
} from '../kit/webhooks/index.js';
import type { Customer, Step } from './step.js';
import type { DemoTarget } from './target.js';
import { smaregiSteps } from './smaregi.js';
import { linkSteps } from './link.js';
import { provisionalSteps } from './provisional.js';

/** The demo's script: which deliveries it sends, for which customer, and what each must do. */

export type { Customer, Expected, Step } from './step.js';

export function bigId(offset: bigint, runId: number): string {
  return (7_000_000_000_000_000_000n + offset * 100_000_000_000_000n + BigInt(runId)).toString();
}

/** A Shopify refunds/create delivery and what it must debit. */
function shopifyRefundStep(o: {
  customer: Customer;
  label: string;
  orderId: string;
  refundId: string;
  amounts: { subtotal: string; tax: string; currency: string };
  secret: string;
  webhookId: string;
  now: number;
  points: number;
}): Step {
  const { orderId, refundId } = o;
  return {
    customer: o.customer,
    label: o.label,
    request: shopifyRefundCreate({ refundId, orderId, ...o.amounts }, o.secret, o.webhookId, o.now),
    record: { source: 'shopify', orderId, refundId },
    expected: { kind: 'debited', points: o.points },
  };
}

/** A Shopify order and its refunds, each refund with what it must debit. */
interface OrderWithRefunds {
  customer: Customer;
  target: DemoTarget;
  runId: number;
  now: number;
  /** Tells this order's webhook ids apart from the other orders' of the run. */
  tag: string;
  orderOffset: bigint;
  order: { name: string; subtotal: string; tax: string; currency: string; taxesIncluded?: boolean };
  label: string;
  credit: number;
  refunds: { offset: bigint; subtotal: string; tax: string; label: string; points: number }[];
}

function orderWithRefundsSteps(o: OrderWithRefunds): Step[] {
  const secret = o.target.secrets.shopify;
  const orderId = bigId(o.orderOffset, o.runId);
  const webhook = (n: number) => `demo-${o.runId}-${o.tag}${n}`;
  const order = { orderId, customerId: o.customer.externalId, ...o.order };
  return [
    {
      customer: o.customer,
      label: o.label,
      request: shopifyOrderWebhook('orders/paid', 'paid', order, secret, webhook(1), o.now),
      record: { source: 'shopify', orderId },
      expected: { kind: 'credited', points: o.credit },
    },
    ...o.refunds.map((r, i) =>
      shopifyRefundStep({
        customer: o.customer,
        label: r.label,
        orderId,
        refundId: bigId(r.offset, o.runId),
        amounts: { subtotal: r.subtotal, tax: r.tax, currency: o.order.currency },
        secret,
        webhookId: webhook(i + 2),
        now: o.now,
        points: r.points,
      }),
    ),
  ];
}

/** The steps of one shopper's story, given how many points an amount earns them. */
type ShopperSteps = (
  customer: Customer,
  rateCredit: (c: Customer, amount: number) => number,
  target: DemoTarget,
  runId: number,
  now: number,
) => Step[];

/**
 * A USD order of $414.95 refunded in two parts ($89.99, then $324.96) that add up to the whole: the
 * shares come from the exact amounts, so the second refund takes back the last point.
 */
export const decimalSteps: ShopperSteps = (customer, rateCredit, target, runId, now) => {
  const credit = rateCredit(customer, 414);
  const first = Number((BigInt(credit) * 8999n) / 41495n);
  const name = `#C${runId % 100_000}`;
  return orderWithRefundsSteps({
    customer,
    target,
    runId,
    now,
    tag: 'c',
    orderOffset: 6n,
    order: { name, subtotal: '414.95', tax: '33.20', currency: 'USD' },
    label: `Shopify orders/paid ${name} $414.95`,
    credit,
    refunds: [
      { offset: 7n, subtotal: '89.99', tax: '7.20', label: 'Shopify refunds/create $89.99 (partial)', points: first },
      { offset: 8n, subtotal: '324.96', tax: '26.00', label: 'Shopify refunds/create $324.96 (the rest)', points: credit - first },
    ],
  });
};

/**
 * A Japanese shop whose prices include consumption tax: two ¥5,500 items (¥500 tax each) earn on
 * ¥10,000, and each line refunded takes back its exact half. The refunds say nothing of tax
 * inclusion: they are measured with what the order's own payload said.
 */
export const taxInclusiveSteps: ShopperSteps = (customer, rateCredit, target, runId, now) => {
  const credit = rateCredit(customer, 10_000);
  const half = Math.floor(credit / 2);
  const name = `#J${runId % 100_000}`;
  const line = { subtotal: '5500', tax: '500' };
  return orderWithRefundsSteps({
    customer,
    target,
    runId,
    now,
    tag: 'j',
    orderOffset: 9n,
    order: { name, subtotal: '11000', tax: '1000', currency: 'JPY', taxesIncluded: true },
    label: `Shopify orders/paid ${name} ¥11,000 tax incl.`,
    credit,
    refunds: [
      { offset: 10n, ...line, label: 'Shopify refunds/create ¥5,500 (1 of 2)', points: half },
      { offset: 11n, ...line, label: 'Shopify refunds/create ¥5,500 (2 of 2)', points: credit - half },
    ],
  });
};

/** A POS sale to a walk-in member, and its full return. */
function posSteps(walkIn: Customer, walkInCredit: number, secret: string, runId: number, now: number): Step[] {
  const receiptId = `R-${runId}`;
  return [
    {
      customer: walkIn,
      label: `POS sale ${receiptId} ¥8,640`,
      request: posSale({ receiptId, cardNumber: walkIn.externalId, subtotal: '8640', tax: '864', currency: 'JPY' }, secret, now),
      record: { source: 'pos', orderId: receiptId },
      expected: { kind: 'credited', points: walkInCredit },
    },
    {
      customer: walkIn,
      label: `POS return of ${receiptId} (full)`,
      request: posReturn(
        {
          returnId: `RT-${runId}`,
          originalReceiptId: receiptId,
          fullReturn: true,
          cardNumber: walkIn.externalId,
          subtotal: '8640',
          tax: '864',
          currency: 'JPY',
        },
        secret,
        now,
      ),
      record: { source: 'pos', orderId: receiptId, refundId: `RT-${runId}` },
      expected: { kind: 'debited', points: walkInCredit },
    },
  ];
}

export function buildSteps(
  customers: {
    shopper: Customer;
    walkIn: Customer;
    unknown: Customer;
    decimalShopper?: Customer | undefined;
    japanShopper?: Customer | undefined;
    squareBuyer?: Customer | undefined;
    smaregiBuyer?: Customer | undefined;
    /** A member with no shop account yet, who buys, then links through the App Proxy. */
    linker?: Customer | undefined;
  },
  rateCredit: (c: Customer, amount: number) => number,
  target: DemoTarget,
  runId: number,
): Step[] {
  const { shopper, walkIn, unknown, squareBuyer } = customers;
  const now = Date.now();
  const s = target.secrets;
  const orderId = bigId(1n, runId);
  const order = { orderId, name: `#D${runId % 100_000}`, customerId: shopper.externalId, subtotal: '12000', tax: '1200', currency: 'JPY' };
  const credit = rateCredit(shopper, 12_000);
  const partial = Math.floor((credit * 3_000) / 12_000);
  const unknownOrder = bigId(3n, runId);
  const webhook = (n: number) => `demo-${runId}-${n}`;
  const paid = shopifyOrderWebhook('orders/paid', 'paid', order, s.shopify, webhook(1), now);
  return [
    {
      customer: shopper,
      label: `Shopify orders/paid ${order.name} ¥12,000`,
      request: paid,
      record: { source: 'shopify', orderId },
      expected: { kind: 'credited', points: credit },
    },
    {
      customer: shopper,
      label: 'same delivery again (Shopify retry)',
      request: paid,
      record: { source: 'shopify', orderId },
      expected: { kind: 'dropped_by_queue' },
    },
    {
      customer: shopper,
      label: 'same order, new webhook id',
      request: shopifyOrderWebhook('orders/paid', 'paid', order, s.shopify, webhook(2), now),
      record: { source: 'shopify', orderId },
      expected: { kind: 'duplicate' },
    },
    shopifyRefundStep({
      customer: shopper,
      label: 'Shopify refunds/create ¥3,000 (partial)',
      orderId,
      refundId: bigId(2n, runId),
      amounts: { subtotal: '3000', tax: '300', currency: 'JPY' },
      secret: s.shopify,
      webhookId: webhook(3),
      now,
      points: partial,
    }),
    shopifyRefundStep({
      customer: shopper,
      label: 'Shopify refunds/create ¥9,000 (the rest)',
      orderId,
      refundId: bigId(4n, runId),
      amounts: { subtotal: '9000', tax: '900', currency: 'JPY' },
      secret: s.shopify,
      webhookId: webhook(4),
      now,
      points: credit - partial,
    }),
    {
      customer: shopper,
      label: 'orders/paid with a forged signature',
      request: shopifyOrderWebhook('orders/paid', 'paid', { ...order, orderId: bigId(5n, runId) }, 'not-the-shop-secret', webhook(5), now),
      record: { source: 'shopify', orderId: bigId(5n, runId) },
      expected: { kind: 'rejected', status: 401 },
    },
    ...posSteps(walkIn, rateCredit(walkIn, 8_640), target.secrets.pos, runId, now),
    {
      customer: unknown,
      label: 'Shopify orders/paid ¥5,000, customer not a member',
      request: shopifyOrderWebhook(
        'orders/paid',
        'paid',
        { ...order, orderId: unknownOrder, name: `#U${runId % 100_000}`, customerId: unknown.externalId, subtotal: '5000', tax: '500' },
        s.shopify,
        webhook(6),
        now,
      ),
      record: { source: 'shopify', orderId: unknownOrder },
      expected: { kind: 'customer_not_found' },
    },
    ...(customers.decimalShopper ? decimalSteps(customers.decimalShopper, rateCredit, target, runId, now) : []),
    ...(customers.japanShopper ? taxInclusiveSteps(customers.japanShopper, rateCredit, target, runId, now) : []),
    ...(squareBuyer && s.square
      ? squareSteps(squareBuyer, rateCredit(squareBuyer, squareEarningAmount(target.squareOrders?.basis)), s.square, runId, now)
      : []),
    ...(customers.smaregiBuyer && s.smaregi
      ? smaregiSteps(customers.smaregiBuyer, (amount) => rateCredit(customers.smaregiBuyer as Customer, amount), s.smaregi, runId, now)
      : []),
    ...(customers.linker ? linkSteps(customers.linker, rateCredit(customers.linker, 5_000), target, bigId(12n, runId), runId, now) : []),
    ...(target.laterSource
      ? provisionalSteps({
          customer: shopper,
          credit: rateCredit(shopper, 20_000),
          secret: s.shopify,
          orderId: bigId(13n, runId),
          runId,
          now,
        })
      : []),
  ];
}

/**
 * Square: an authorised payment (nothing yet), its completion before Square matched the customer
 * (skipped, but open to the customer), the customer attached by a later payment.updated (credited),
 * Square's retry of that event (same event_id), a partial refund and the rest.
 */
/**
 * The demo's Square sale as its till rings it up: one ¥12,000 line with ¥1,090 consumption tax inside
 * (10 %), and a ¥1,000 tip. On the `subtotal_excluding_tax` basis the worker reads this order and earns
 * on ¥10,910; on `amount` (the default) on the payment's ¥12,000.
 */
export function squareDemoOrder(runId: number) {
  const yen = (amount: number) => ({ amount, currency: 'JPY' });
  return {
    id: `O-SQDEMO${runId}`,
    location_id: 'L-DEMO',
    line_items: [{ name: 'Demo item', quantity: '1', total_money: yen(12_000), total_tax_money: yen(1_090) }],
    total_tax_money: yen(1_090),
    total_tip_money: yen(1_000),
    total_money: yen(13_000),
  };
}

export function squareEarningAmount(basis: string | undefined): number {
  return basis === 'subtotal_excluding_tax' ? 10_910 : 12_000;
}

export function squareSteps(buyer: Customer, credit: number, signing: SquareSigning, runId: number, now: number): Step[] {
  const paymentId = `SQDEMO${runId}`;
  const record = { source: 'square', orderId: paymentId };
  const sale = { paymentId, customerId: buyer.externalId, amount: 12_000, tip: 1_000, currency: 'JPY' } as const;
  const event = (n: number) => `demo-${runId}-sq-${n}`;
  const partial = Math.floor((credit * 3_000) / 12_000);
  const refund = (n: number, amount: number) =>
    squareRefund(
      'refund.updated',
      { refundId: `${paymentId}_R${n}`, paymentId, status: 'COMPLETED', amount, currency: 'JPY' },
      signing,
      event(10 + n),
      now,
    );
  const named = squarePayment('payment.updated', { ...sale, status: 'COMPLETED' }, signing, event(3), now);
  return [
    {
      customer: buyer,
      label: 'Square payment.created ¥12,000 + ¥1,000 tip, APPROVED',
      request: squarePayment('payment.created', { ...sale, customerId: null, status: 'APPROVED' }, signing, event(1), now),
      record,
      expected: { kind: 'ignored' },
    },
    {
      customer: buyer,
      label: 'payment.updated COMPLETED, no customer yet',
      request: squarePayment('payment.updated', { ...sale, customerId: null, status: 'COMPLETED' }, signing, event(2), now),
      record,
      expected: { kind: 'skipped' },
    },
    {
      customer: buyer,
      label: 'payment.updated, customer matched later',
      request: named,
      record,
      expected: { kind: 'credited', points: credit },
    },
    { customer: buyer, label: 'same event again (Square retry)', request: named, record, expected: { kind: 'dropped_by_queue' } },
    {
      customer: buyer,
      label: 'Square refund ¥3,000 (partial)',
      request: refund(1, 3_000),
      record: { ...record, refundId: `${paymentId}_R1` },
      expected: { kind: 'debited', points: partial },
    },
    {
      customer: buyer,
      label: 'Square refund ¥9,000 (the rest)',
      request: refund(2, 9_000),
      record: { ...record, refundId: `${paymentId}_R2` },
      expected: { kind: 'debited', points: credit - partial },
    },
  ];
}
