import type { AmountTerms, QueuedEvent, RefundParts } from '../../events/index.js';
import { header } from '../headers.js';
import { parseJsonBody } from '../json.js';
import {
  type Decimal,
  addDecimals,
  compareDecimals,
  formatDecimal,
  measureRefund,
  negateDecimal,
  subtractDecimals,
  sumDecimals,
  toUnits,
  ZERO,
} from '../../money/index.js';
import { invalid, schemaError } from '../payload.js';
import { renderTitle } from '../settings.js';
import { decodeBase64, hmacSha256, macEquals } from '../signature.js';
import { enrolmentEvent, parseCustomer } from './webhook-customers.js';
import { parsePrivacyRequest, privacyEvent, SHOPIFY_PRIVACY_TOPICS, type ShopifyPrivacyTopic } from './webhook-privacy.js';
import { shopifySubscriptions, shopifyVersionMismatch } from './webhook-subscriptions.js';
import {
  type MoneySet,
  SHOPIFY_TOPICS,
  type ShopifyDelivery,
  orderLineQuantities,
  refundLineQuantities,
  ShopifyOrder,
  type ShopifyPayload,
  ShopifyRefund,
  type ShopifyTopic,
} from './webhook-payload.js';
import type { Outcome, RequestHeaders, SignedRequest, SourceError, VerifyOptions, WebhookSource } from '../types.js';
import { ignored, ok, rejected } from '../types.js';
import { ShopifySettings, shopifyCustomerLinking } from './settings.js';
import { earnAfterOf } from '../earn-after.js';
import { fulfilledShare } from './fulfilled-share.js';
import { canonicalDelivery, cancelledUnpaid, createdOrder } from './order-events.js';

export { ShopifySettings } from './settings.js';

const TOPIC_NAME = /^[a-z0-9_]{1,40}\/[a-z0-9_]{1,40}$/;

/** Largest amount the canonical events accept. */
const MAX_AMOUNT = 999_999_999n;

// Financial states in which the order was never paid, so no points were ever credited for it.
const NEVER_PAID = new Set(['pending', 'authorized', 'voided', 'expired']);

function verify(request: SignedRequest, options: VerifyOptions): SourceError | null {
  const claimed = header(request.headers, 'X-Shopify-Hmac-Sha256');
  if (!claimed) return { kind: 'missing_signature', message: 'X-Shopify-Hmac-Sha256 header is missing' };
  const claimedMac = decodeBase64(claimed);
  if (claimedMac === undefined) return { kind: 'invalid_signature', message: 'X-Shopify-Hmac-Sha256 is not base64' };
  for (const secret of options.secrets) {
    if (macEquals(hmacSha256(secret, request.rawBody), claimedMac)) return null;
  }
  return { kind: 'invalid_signature', message: 'signature does not match' };
}

function deliveryFrom(headers: RequestHeaders, topic: ShopifyDelivery['topic']): ShopifyDelivery {
  const pick = (name: string) => header(headers, name) || undefined;
  const fields = {
    shopDomain: pick('X-Shopify-Shop-Domain'),
    apiVersion: pick('X-Shopify-API-Version'),
    webhookId: pick('X-Shopify-Webhook-Id'),
    eventId: pick('X-Shopify-Event-Id'),
    triggeredAt: pick('X-Shopify-Triggered-At'),
  };
  return { topic, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) };
}

function parse(request: SignedRequest, settings: ShopifySettings): Outcome<ShopifyPayload> {
  const topic = header(request.headers, 'X-Shopify-Topic');
  if (!topic) return rejected(invalid('headers.X-Shopify-Topic', 'header is missing'));
  if (Object.hasOwn(SHOPIFY_PRIVACY_TOPICS, topic)) return parsePrivacy(request, settings, topic as ShopifyPrivacyTopic);
  if (!Object.hasOwn(SHOPIFY_TOPICS, topic)) {
    // The topic header is not signed: repeat it only when it looks like a topic name.
    return ignored(TOPIC_NAME.test(topic) ? `topic ${topic} is not handled` : 'topic is not handled');
  }
  const known = topic as ShopifyTopic;
  const delivery = deliveryFrom(request.headers, known);
  if (settings.shopDomains.length > 0 && !settings.shopDomains.includes(delivery.shopDomain ?? '')) {
    return ignored('shop is not configured for this source');
  }
  // Exact numbers: refund line items carry amounts as JSON numbers (89.99), never read as floats.
  const json = parseJsonBody(request.rawBody, { exactNumbers: true });
  if (!json.ok) return rejected(json.error);
  const kind = SHOPIFY_TOPICS[known];
  if (kind === 'customer') {
    const customer = parseCustomer(json.value);
    return customer.status === 'ok' ? ok({ kind, customer: customer.value, delivery }) : customer;
  }
  if (kind === 'refund') {
    const refund = ShopifyRefund.safeParse(json.value);
    return refund.success
      ? ok({ kind, refund: refund.data, lines: refundLineQuantities(json.value), delivery })
      : rejected(schemaError(refund.error));
  }
  const order = ShopifyOrder.safeParse(json.value);
  if (!order.success) return rejected(schemaError(order.error));
  const lines = orderLineQuantities(json.value);
  if (kind !== 'partial_fulfilment') return ok({ kind, order: order.data, lines, delivery });
  // The cumulative share shipped so far, from the order's own fulfilments (exact: fulfilled-share.ts).
  const shipped = fulfilledShare(json.value);
  return 'share' in shipped ? ok({ kind, order: order.data, lines, delivery, shipped: shipped.share }) : rejected(shipped);
}

/** A compliance request: for a configured shop only, as its signed body names it. */
function parsePrivacy(request: SignedRequest, settings: ShopifySettings, topic: ShopifyPrivacyTopic): Outcome<ShopifyPayload> {
  const delivery = deliveryFrom(request.headers, topic);
  const json = parseJsonBody(request.rawBody, { exactNumbers: true });
  if (!json.ok) return rejected(json.error);
  const parsed = parsePrivacyRequest(json.value);
  if (parsed.status !== 'ok') return parsed;
  if (settings.shopDomains.length > 0 && !settings.shopDomains.includes(parsed.value.shop_domain)) {
    return ignored('shop is not configured for this source');
  }
  return ok({ kind: 'privacy', topic, request: parsed.value, delivery });
}

/** An amount field of an order: `<name>_set.shop_money` when present, else `<name>`. */
function orderMoney(order: ShopifyOrder, name: OrderMoneyField): Decimal | undefined {
  return order[`${name}_set`]?.shop_money.amount ?? order[name];
}
type OrderMoneyField =
  | 'current_subtotal_price'
  | 'current_total_tax'
  | 'current_total_price'
  | 'subtotal_price'
  | 'total_tax'
  | 'total_price';

function money(set: MoneySet | undefined, plain: Decimal | undefined): Decimal {
  return set?.shop_money.amount ?? plain ?? ZERO;
}

/** Fields to read each total from, first present wins (older API versions lack `current_*`). */
type Totals = Record<'subtotal' | 'tax' | 'total', readonly OrderMoneyField[]>;
const CURRENT: Totals = {
  subtotal: ['current_subtotal_price', 'subtotal_price'],
  tax: ['current_total_tax', 'total_tax'],
  total: ['current_total_price', 'total_price'],
};
const ORIGINAL: Totals = { subtotal: ['subtotal_price'], tax: ['total_tax'], total: ['total_price'] };

/** The order's eligible amount (as a decimal in shop currency) by the configured basis. */
function orderAmount(order: ShopifyOrder, totals: Totals, settings: ShopifySettings): Decimal | SourceError {
  const read = (fields: readonly OrderMoneyField[]): Decimal | SourceError => {
    for (const field of fields) {
      const value = orderMoney(order, field);
      if (value !== undefined) return value;
    }
    return invalid(fields[0] ?? 'amount', 'amount is missing');
  };
  const amount = basisAmount(order, totals, settings.amount.basis, read);
  // Gift cards are untaxed and not shipped, so the same amount leaves every basis.
  return isError(amount) ? amount : subtractDecimals(amount, giftCardAmount(order, totals === CURRENT));
}

function basisAmount(
  order: ShopifyOrder,
  totals: Totals,
  basis: ShopifySettings['amount']['basis'],
  read: (fields: readonly OrderMoneyField[]) => Decimal | SourceError,
): Decimal | SourceError {
  if (basis === 'total') return read(totals.total);
  const subtotal = read(totals.subtotal);
  if (isError(subtotal) || basis === 'subtotal' || !order.taxes_included) return subtotal;
  // Prices include tax: take out the tax on the line items (order tax minus the shipping's tax).
  const tax = read(totals.tax);
  if (isError(tax)) return tax;
  const shippingTax = sumDecimals(order.shipping_lines.flatMap((l) => l.tax_lines.map((t) => money(t.price_set, t.price))));
  const lineTax = subtractDecimals(tax, shippingTax);
  return subtractDecimals(subtotal, compareDecimals(lineTax, ZERO) > 0 ? lineTax : ZERO);
}

/** What the order's gift-card lines cost after their discounts (current quantities for current totals). */
function giftCardAmount(order: ShopifyOrder, current: boolean): Decimal {
  return sumDecimals(
    order.line_items.map((line) => {
      const price = money(line.price_set, line.price);
      const quantity = BigInt(current ? (line.current_quantity ?? line.quantity) : line.quantity);
      const discounts = sumDecimals(line.discount_allocations.map((a) => money(a.amount_set, a.amount)));
      return subtractDecimals({ units: price.units * quantity, scale: price.scale }, discounts);
    }),
  );
}

/**
 * The refund as Shopify states it: its lines' subtotals and tax (gift-card lines left out: their
 * purchase earned nothing) and, when configured, the order adjustments (negative when money goes back),
 * shipping apart. Processing measures these with the terms kept with the purchase.
 */
function refundParts(refund: ShopifyRefund, settings: ShopifySettings): RefundParts {
  const lines = refund.refund_line_items.filter((l) => !l.line_item?.gift_card);
  let price = sumDecimals(lines.map((l) => money(l.subtotal_set, l.subtotal)));
  let tax = sumDecimals(lines.map((l) => money(l.total_tax_set, l.total_tax)));
  let shippingPrice = ZERO;
  let shippingTax = ZERO;
  if (settings.includeOrderAdjustments) {
    for (const adj of refund.order_adjustments) {
      const amount = negateDecimal(money(adj.amount_set, adj.amount));
      const adjTax = negateDecimal(money(adj.tax_amount_set, adj.tax_amount));
      if (adj.kind === 'shipping_refund') {
        shippingPrice = addDecimals(shippingPrice, amount);
        shippingTax = addDecimals(shippingTax, adjTax);
      } else {
        price = addDecimals(price, amount);
        tax = addDecimals(tax, adjTax);
      }
    }
  }
  const text = formatDecimal;
  return { price: text(price), tax: text(tax), shippingPrice: text(shippingPrice), shippingTax: text(shippingTax) };
}

/** What the order's own payload says about its prices, with the source's basis and rule. */
function termsOf(order: ShopifyOrder, settings: ShopifySettings): AmountTerms {
  return { basis: settings.amount.basis, taxesIncluded: order.taxes_included, rule: settings.amount.rule };
}

/** Refunds of orders recorded before terms were kept are measured as before: tax-exclusive prices. */
function legacyTerms(settings: ShopifySettings): AmountTerms {
  return { basis: settings.amount.basis, taxesIncluded: false, rule: settings.amount.rule };
}

function refundCurrency(refund: ShopifyRefund): string {
  const fromSets = [...refund.refund_line_items.map((l) => l.subtotal_set), ...refund.order_adjustments.map((a) => a.amount_set)].find(
    (s) => s !== undefined,
  )?.shop_money.currency_code;
  // XXX is ISO 4217's "no currency": a refund without any amount says nothing about it.
  return fromSets ?? refund.transactions.find((t) => t.currency)?.currency ?? 'XXX';
}

function isError(v: Decimal | SourceError): v is SourceError {
  return 'kind' in v;
}

function units(amount: Decimal, currency: string, settings: ShopifySettings, path: string): number | SourceError {
  const n = toUnits(amount, currency, settings.amount.rule);
  if (n > MAX_AMOUNT) return invalid(path, `amount exceeds ${MAX_AMOUNT} units`);
  return Number(n < 0n ? 0n : n);
}

/** The exact amount for the canonical event (never negative, like the integer units). */
function exact(amount: Decimal): string {
  return formatDecimal(compareDecimals(amount, ZERO) > 0 ? amount : ZERO);
}

/** refunds/create: the refund's lines and adjustments, measured with the order's terms when it is processed. */
function refundEvent(
  payload: Extract<ShopifyPayload, { kind: 'refund' }>,
  source: string,
  settings: ShopifySettings,
): Outcome<QueuedEvent> {
  const refund = payload.refund;
  const currency = refundCurrency(refund);
  const parts = refundParts(refund, settings);
  // Only for an order recorded before terms were kept: processing measures `parts` with the order's terms.
  const exactAmount = measureRefund(parts, legacyTerms(settings));
  const amount = units(exactAmount, currency, settings, 'refund_line_items');
  if (typeof amount !== 'number') return rejected(amount);
  const eventId = `${source}:refund:${refund.order_id}:${refund.id}`;
  return ok({
    type: 'refund',
    eventId,
    source,
    orderId: refund.order_id,
    refundId: refund.id,
    // refunds/create does not name the customer: processing takes it from the purchase.
    customer: null,
    currency,
    occurredAt: refund.processed_at ?? refund.created_at,
    // The refund payload does not carry the order's name, only its id.
    pointTitle: renderTitle(settings.refundTitle, { order: refund.order_id, orderId: refund.order_id, source }),
    test: false,
    delivery: canonicalDelivery(payload.delivery, eventId),
    refundAmount: amount,
    refundExact: exact(exactAmount),
    parts,
    refundsRemainder: false,
    ...(payload.lines ? { refundedLines: payload.lines } : {}),
  });
}

function normalise(payload: ShopifyPayload, context: { source: string; settings: ShopifySettings }): Outcome<QueuedEvent> {
  const { source, settings } = context;
  if (payload.kind === 'privacy') {
    const { request, topic } = payload;
    const fallback = `${source}:privacy:${request.shop_domain}:${request.customer?.id ?? 'shop'}:${request.data_request?.id ?? ''}`;
    return privacyEvent(request, {
      source,
      externalKey: settings.externalKey,
      topic,
      delivery: canonicalDelivery(payload.delivery, fallback),
      shopDomains: settings.shopDomains,
    });
  }
  if (payload.kind === 'customer') {
    const delivery = canonicalDelivery(payload.delivery, `${source}:customer:${payload.customer.id}`);
    return enrolmentEvent(payload.customer, { source, settings, delivery, triggeredAt: payload.delivery.triggeredAt });
  }
  if (payload.kind === 'refund') return refundEvent(payload, source, settings);

  const order = payload.order;
  if (order.test && settings.testOrders === 'ignore') return ignored('test order');
  // `credit`: a test order counts as a sale (staging fed by a development store).
  const test = order.test && settings.testOrders !== 'credit';
  const customer = order.customer ? { externalKey: settings.externalKey, externalId: order.customer.id } : null;
  const currency =
    order.current_subtotal_price_set?.shop_money.currency_code ?? order.subtotal_price_set?.shop_money.currency_code ?? order.currency;
  const titleValues = { order: order.name || order.id, orderId: order.id, source };

  if (payload.kind === 'created') return createdOrder(order, payload.lines, { source, delivery: payload.delivery, customer, currency });

  if (payload.kind === 'cancellation') {
    // The topic header is not signed, the body is: a paid order's body replayed as orders/cancelled
    // would otherwise debit a live order.
    if (!order.cancelled_at) return rejected(invalid('cancelled_at', 'an orders/cancelled order carries cancelled_at'));
    if (order.financial_status && NEVER_PAID.has(order.financial_status)) {
      // Nothing was credited; a code the order reserved still gives its points back.
      if (order.discount_codes.length === 0) return ignored(`cancelled order was never paid (${order.financial_status})`);
      return cancelledUnpaid(order, {
        source,
        delivery: payload.delivery,
        customer,
        currency,
        test,
        title: renderTitle(settings.refundTitle, titleValues),
      });
    }
    // What the order was worth when placed; processing debits whatever remains of the grant.
    const amount = orderAmount(order, ORIGINAL, settings);
    if (isError(amount)) return rejected(amount);
    const refundUnits = units(amount, currency, settings, 'subtotal_price');
    if (typeof refundUnits !== 'number') return rejected(refundUnits);
    const eventId = `${source}:refund:${order.id}:cancel`;
    return ok({
      type: 'refund',
      eventId,
      source,
      orderId: order.id,
      refundId: 'cancel',
      customer,
      currency,
      occurredAt: order.cancelled_at ?? order.processed_at ?? order.created_at,
      pointTitle: renderTitle(settings.refundTitle, titleValues),
      test,
      delivery: canonicalDelivery(payload.delivery, eventId),
      refundAmount: refundUnits,
      refundExact: exact(amount),
      refundsRemainder: true,
    });
  }

  // Fulfilment is the moment only for a source that waits for it; the order's payment earns otherwise.
  const fulfilment = payload.kind === 'fulfilment' || payload.kind === 'partial_fulfilment';
  if (fulfilment && settings.earnAfter !== 'fulfilled') return ignored('the source earns its points at payment');
  if (payload.kind === 'partial_fulfilment' && !settings.partialFulfilments) {
    return ignored('the source earns at orders/fulfilled, not per shipment (partialFulfilments is off)');
  }
  // The reverse swap: a cancelled order's body replayed as orders/paid. A genuine orders/paid
  // snapshot has cancelled_at null; 200 ignored so Shopify stops retrying.
  if (order.cancelled_at) return ignored('order is cancelled');
  const amount = orderAmount(order, CURRENT, settings);
  if (isError(amount)) return rejected(amount);
  const eligible = units(amount, currency, settings, 'current_subtotal_price');
  if (typeof eligible !== 'number') return rejected(eligible);
  const shipped = payload.kind === 'partial_fulfilment' ? payload.shipped : undefined;
  // A partial delivery is named by the share it ships: the same share delivered again is the same event.
  const moment = payload.kind === 'fulfilment' ? ':fulfilled' : shipped ? `:shipped:${shipped.num}/${shipped.den}` : '';
  const eventId = `${source}:order:${order.id}${moment}`;
  const earnAfter = earnAfterOf(settings.earnAfter);
  return ok({
    type: 'purchase',
    eventId,
    source,
    orderId: order.id,
    customer,
    currency,
    occurredAt: order.processed_at ?? order.created_at,
    pointTitle: renderTitle(settings.pointTitle, titleValues),
    test,
    delivery: canonicalDelivery(payload.delivery, eventId),
    eligibleAmount: eligible,
    eligibleExact: exact(amount),
    terms: termsOf(order, settings),
    expiryDays: settings.expiryDays,
    ...(order.discount_codes.length > 0
      ? { discountCodes: order.discount_codes, ...(payload.lines ? { orderLines: payload.lines } : {}) }
      : {}),
    ...(earnAfter ? { earnAfter } : {}),
    ...(payload.kind === 'fulfilment' ? { earnMoment: 'fulfilled' as const } : {}),
    ...(shipped ? { earnMoment: 'partial' as const, shipped: { num: String(shipped.num), den: String(shipped.den) } } : {}),
    ...(order.name ? { orderName: order.name } : {}),
  });
}

/**
 * An order with a few hundred line items is well over 256 KiB (each line item, with its tax lines, price
 * sets and discount allocations, is a few KB). 4 MiB stays under API Gateway's 10 MB and Lambda's 6 MB
 * request payload, and verifying the signature of that much costs a few milliseconds.
 */
export const SHOPIFY_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Shopify: `orders/paid` credits, `refunds/create` debits, `orders/cancelled` debits what remains. */
export const shopifySource: WebhookSource<ShopifySettings, ShopifyPayload, QueuedEvent> = {
  kind: 'shopify',
  settingsSchema: ShopifySettings,
  customerLinking: shopifyCustomerLinking,
  verify,
  parse,
  normalise,
  // Shopify retries a failed delivery, then deletes the subscription: never refuse an authentic one.
  quarantinesUnreadable: true,
  maxBodyBytes: SHOPIFY_MAX_BODY_BYTES,
  subscriptions: shopifySubscriptions,
  versionMismatch: shopifyVersionMismatch,
};
