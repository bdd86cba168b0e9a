import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refundShare, type OrderBook } from '../../../../shared/points/index.js';
import type { PurchaseEvent, RefundEvent } from '../../../../shared/events/index.js';
import { formatMinorUnits, parseDecimal, subtractDecimals, sumDecimals } from '../../../../shared/sources/money.js';
import { configureSource } from '../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../shared/sources/shopify.js';
import { shopifyHeaders } from '../../../support/webhooks.js';

/**
 * Property: an order split into refunds that return every line takes back exactly the credit, for
 * any split, currency (0, 2, 3 decimals), tax mode (prices with or without tax), amount basis, and
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

function orderBody(lines: Line[], currency: string, digits: number, taxesIncluded: boolean): string {
  const subtotal = lines.reduce((a, l) => a + l.subtotal, 0n);
  const tax = lines.reduce((a, l) => a + l.tax, 0n);
  const total = taxesIncluded ? subtotal : subtotal + tax;
  const m = (v: bigint) => JSON.stringify(formatMinorUnits(v, digits));
  return `{"id":6390542762090,"name":"#1050","created_at":"2026-11-21T12:10:44-05:00","currency":"${currency}","taxes_included":${taxesIncluded},"test":false,"customer":{"id":7710062936167},"current_subtotal_price":${m(subtotal)},"current_subtotal_price_set":${set(subtotal, digits, currency)},"current_total_tax":${m(tax)},"current_total_tax_set":${set(tax, digits, currency)},"current_total_price":${m(total)},"current_total_price_set":${set(total, digits, currency)},"shipping_lines":[]}`;
}

function refundBody(id: number, lines: Line[], currency: string, digits: number, asNumber: boolean): string {
  const items = lines.map(
    (l, i) =>
      `{"id":${id * 100 + i},"quantity":1,"subtotal":${money(l.subtotal, digits, asNumber)},"total_tax":${money(l.tax, digits, asNumber)},"subtotal_set":${set(l.subtotal, digits, currency)},"total_tax_set":${set(l.tax, digits, currency)}}`,
  );
  return `{"id":${id},"order_id":6390542762090,"created_at":"2026-11-22T10:00:00-05:00","refund_line_items":[${items.join(',')}],"order_adjustments":[],"transactions":[]}`;
}

describe('Shopify refunds that return the whole order', () => {
  it('take back exactly the credit, whatever the split, currency, tax mode and basis', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.boolean(),
        fc.constantFrom('subtotal_excluding_tax', 'subtotal', 'total'),
        fc.constantFrom('major_floor', 'minor'),
        fc.integer({ min: 1, max: 100_000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 5 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.nat(), { minLength: 1, maxLength: 6 }))),
        ({ code, digits }, taxesIncluded, basis, rule, credited, asNumber, [groups, picks]) => {
          const lines = picks.map((p, i) => ({ subtotal: BigInt(p % 100_000) * 10n ** BigInt(digits) + BigInt(i), tax: BigInt(p % 977) }));
          // With prices including tax, the line's subtotal carries its tax.
          const shown = taxesIncluded ? lines.map((l) => ({ subtotal: l.subtotal + l.tax, tax: l.tax })) : lines;
          const settings = ShopifySettings.parse({ taxesIncluded, amount: { basis, rule } });
          const source = configureSource(shopifySource, 'shopify', settings);
          const read = (body: string, topic: string) => {
            const outcome = source.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, topic) });
            if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
            return outcome.value;
          };
          const purchase = read(orderBody(shown, code, digits, taxesIncluded), 'orders/paid') as PurchaseEvent;
          const buckets: Line[][] = Array.from({ length: groups }, () => []);
          shown.forEach((l, i) => {
            buckets[i % groups]!.push(l);
          });
          const refunds = buckets
            .filter((b) => b.length > 0)
            .map((b, i) => read(refundBody(1000 + i, b, code, digits, asNumber), 'refunds/create') as RefundEvent);

          const total = sumDecimals(refunds.map((r) => parseDecimal(r.refundExact!)!));
          expect(subtractDecimals(total, parseDecimal(purchase.eligibleExact!)!).units).toBe(0n);

          let book: OrderBook = {
            eligibleAmount: purchase.eligibleAmount,
            eligibleExact: purchase.eligibleExact,
            credited,
            refundedSoFar: 0,
            debitTarget: 0,
          };
          let debited = 0;
          for (const r of refunds) {
            const share = refundShare(book, r);
            debited += share.target;
            expect(debited).toBeLessThanOrEqual(credited);
            book = {
              ...book,
              refundedSoFar: share.refundedAfter,
              debitTarget: book.debitTarget + share.target,
              refundedExact: share.exactRefundedAfter ?? undefined,
            };
          }
          // An order worth 0 earned nothing to take back.
          expect(debited).toBe(/^0(\.0+)?$/.test(purchase.eligibleExact!) ? 0 : credited);
        },
      ),
    );
  });
});
