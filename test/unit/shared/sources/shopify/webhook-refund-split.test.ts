import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refundShare, type OrderBook } from '../../../../../shared/points/index.js';
import type { PurchaseEvent, RefundEvent } from '../../../../../shared/events/index.js';
import { formatMinorUnits, measureRefund, parseDecimal, subtractDecimals, sumDecimals } from '../../../../../shared/money/index.js';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import { shopifyHeaders } from '../../../../../kit/fixture-webhooks.js';

/**
 * Property: an order split into refunds that return every line (and the shipping) takes back exactly
 * the credit, and each refund exactly its share, for any split, currency (0, 2, 3 decimals), tax mode
 * (as the order's own payload says; no setting), mixed rates (8 % / 10 %), shipping, amount basis, and
 * amounts written as strings or JSON numbers, as Shopify writes them.
 */
const SECRET = 'demo-shopify-secret';
const CURRENCIES = [
  { code: 'JPY', digits: 0 },
  { code: 'USD', digits: 2 },
  { code: 'KWD', digits: 3 },
];

const money = (minor: bigint, digits: number, asNumber: boolean) => {
  const text = formatMinorUnits(minor, digits);
  return asNumber ? text : JSON.stringify(text);
};
const set = (minor: bigint, digits: number, currency: string) =>
  `{"shop_money":{"amount":"${formatMinorUnits(minor, digits)}","currency_code":"${currency}"}}`;

interface Line {
  subtotal: bigint;
  tax: bigint;
}

interface Shipping {
  price: bigint;
  tax: bigint;
}

function orderBody(lines: Line[], shipping: Shipping, currency: string, digits: number, taxesIncluded: boolean): string {
  const subtotal = lines.reduce((a, l) => a + l.subtotal, 0n);
  const tax = lines.reduce((a, l) => a + l.tax, 0n) + shipping.tax;
  const total = subtotal + shipping.price + (taxesIncluded ? 0n : tax);
  const m = (v: bigint) => JSON.stringify(formatMinorUnits(v, digits));
  const shippingLines = `[{"price":${m(shipping.price)},"tax_lines":[{"price":${m(shipping.tax)},"price_set":${set(shipping.tax, digits, currency)}}]}]`;
  return `{"id":6390542762090,"name":"#1050","created_at":"2026-11-21T12:10:44-05:00","currency":"${currency}","taxes_included":${taxesIncluded},"test":false,"customer":{"id":7710062936167},"current_subtotal_price":${m(subtotal)},"current_subtotal_price_set":${set(subtotal, digits, currency)},"current_total_tax":${m(tax)},"current_total_tax_set":${set(tax, digits, currency)},"current_total_price":${m(total)},"current_total_price_set":${set(total, digits, currency)},"shipping_lines":${shippingLines}}`;
}

function refundBody(id: number, lines: Line[], shipping: Shipping | null, currency: string, digits: number, asNumber: boolean): string {
  const items = lines.map(
    (l, i) =>
      `{"id":${id * 100 + i},"quantity":1,"subtotal":${money(l.subtotal, digits, asNumber)},"total_tax":${money(l.tax, digits, asNumber)},"subtotal_set":${set(l.subtotal, digits, currency)},"total_tax_set":${set(l.tax, digits, currency)}}`,
  );
  const adjustments = shipping
    ? `[{"kind":"shipping_refund","amount":${money(-shipping.price, digits, asNumber)},"tax_amount":${money(-shipping.tax, digits, asNumber)}}]`
    : '[]';
  return `{"id":${id},"order_id":6390542762090,"created_at":"2026-11-22T10:00:00-05:00","refund_line_items":[${items.join(',')}],"order_adjustments":${adjustments},"transactions":[]}`;
}

/** A line's tax at 8 % (food) or 10 %: inside the price when prices include tax, on top of it otherwise. */
function lineOf(price: bigint, rate: bigint, taxesIncluded: boolean): Line {
  return { subtotal: price, tax: taxesIncluded ? (price * rate) / (100n + rate) : (price * rate) / 100n };
}

/** What processing reads from the ledger for a credited order: its book, with the purchase's own terms. */
function bookOf(purchase: PurchaseEvent, credited: number): OrderBook {
  return {
    eligibleAmount: purchase.eligibleAmount,
    eligibleExact: purchase.eligibleExact,
    terms: purchase.terms,
    currency: purchase.currency,
    credited,
    refundedSoFar: 0,
    debitTarget: 0,
  };
}

const proportion = (credited: number, part: bigint, whole: bigint) => (whole === 0n ? 0 : Number((BigInt(credited) * part) / whole));

describe("Shopify refunds of an order, measured with the purchase's own terms", () => {
  it('take back exactly the credit in full and exactly their share in part, whatever the split, currency, tax mode, rates, shipping and basis', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.boolean(),
        fc.constantFrom('subtotal_excluding_tax', 'subtotal', 'total'),
        fc.constantFrom('major_floor', 'minor'),
        fc.integer({ min: 1, max: 100_000 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(8n, 10n)), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 2000 }),
        fc.integer({ min: 1, max: 5 }),
        ({ code, digits }, taxesIncluded, basis, rule, credited, asNumber, picks, shippingPrice, groups) => {
          const lines = picks.map(([p, rate], i) => lineOf(BigInt(p % 100_000) * 10n ** BigInt(digits) + BigInt(i), rate, taxesIncluded));
          const shipping = lineOf(BigInt(shippingPrice) * 10n ** BigInt(digits), 10n, taxesIncluded);
          const shippingTotal = { price: shipping.subtotal, tax: shipping.tax };
          // No stage setting says whether prices include tax: the order's own payload does.
          const settings = ShopifySettings.parse({ includeOrderAdjustments: true, amount: { basis, rule } });
          const source = configureSource(shopifySource, 'shopify', settings);
          const read = (body: string, topic: string) => {
            const outcome = source.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, topic) });
            if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
            return outcome.value;
          };
          const purchase = read(orderBody(lines, shippingTotal, code, digits, taxesIncluded), 'orders/paid') as PurchaseEvent;
          const buckets: Line[][] = Array.from({ length: groups }, () => []);
          lines.forEach((l, i) => {
            buckets[i % groups]!.push(l);
          });
          const parts = buckets.filter((b) => b.length > 0);
          // The shipping goes back with the last refund, as an order adjustment.
          const refunds = parts.map(
            (b, i) =>
              read(
                refundBody(1000 + i, b, i === parts.length - 1 ? shippingTotal : null, code, digits, asNumber),
                'refunds/create',
              ) as RefundEvent,
          );

          const eligible = parseDecimal(purchase.eligibleExact!)!;
          let book = bookOf(purchase, credited);
          let debited = 0;
          let refundedSoFar = parseDecimal('0')!;
          for (const r of refunds) {
            const share = refundShare(book, r);
            debited += share.target;
            refundedSoFar = sumDecimals([refundedSoFar, measureRefund(r.parts!, purchase.terms!)]);
            const scale = Math.max(refundedSoFar.scale, eligible.scale);
            const up = (d: { units: bigint; scale: number }) => d.units * 10n ** BigInt(scale - d.scale);
            // Each refund brings the debits to exactly its share of the credit, never past it.
            expect(debited).toBe(Math.min(credited, proportion(credited, up(refundedSoFar), up(eligible))));
            book = {
              ...book,
              refundedSoFar: share.refundedAfter,
              debitTarget: book.debitTarget + share.target,
              refundedExact: share.exactRefundedAfter ?? undefined,
            };
          }
          // The whole order refunded: the refunds' amounts add up to the eligible amount, the debits to the credit.
          expect(subtractDecimals(refundedSoFar, eligible).units).toBe(0n);
          expect(debited).toBe(/^0(\.0+)?$/.test(purchase.eligibleExact!) ? 0 : credited);
        },
      ),
    );
  });
});
