import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../../../../shared/sources/json.js';
import { shippedUnits } from '../../../../../shared/points/index.js';
import { type FulfilledShare, fulfilledShare, type Share } from '../../../../../shared/sources/shopify/fulfilled-share.js';
import type { SourceError } from '../../../../../shared/sources/types.js';
import { fixture } from '../../../../../kit/fixture-webhooks.js';

/**
 * Partial fulfilments (issue 53): the published order of test/fixtures/shopify/SOURCES.md
 * (ruby-api-2024-07-order-test8.json: three 199.00 lines with 3.34 / 3.33 / 3.33 discount allocations and
 * one fulfilment of the first line, status `failure`) is read as Shopify sends it, cut out of its
 * `{"order": ...}` wrapper; the shipped cases change only its fulfilment's status and lines.
 */
const text = fixture('shopify/ruby-api-2024-07-order-test8.json');
const ORDER = text.slice(text.indexOf('{', text.indexOf(':')), text.lastIndexOf('}', text.lastIndexOf('}') - 1) + 1);

function orderOf(body: string): unknown {
  const json = parseJsonBody(Buffer.from(body), { exactNumbers: true });
  if (!json.ok) throw new Error(json.error.message);
  return json.value;
}

/** The published order with its one fulfilment shipped (`success`) carrying the given lines instead. */
function shipped(lines: { id: number; quantity: number }[][]): unknown {
  const order = orderOf(ORDER) as { fulfillments: Record<string, unknown>[] };
  const [first] = order.fulfillments;
  order.fulfillments = lines.map((line_items, i) => ({ ...first, id: 255858046 + i, status: 'success', line_items }));
  return order;
}

const share = (order: unknown) => fulfilledShare(order) as FulfilledShare;
/** What the points core earns on: the whole amount times the share, rounded down once (as the event carries it). */
const shareUnits = (whole: number, s: Share) => shippedUnits(whole, { num: String(s.num), den: String(s.den) });

describe('Shopify partial fulfilments: the share of the order shipped', () => {
  it('a failed fulfilment in the published order ships nothing and counts no fulfilment', () => {
    const s = share(orderOf(ORDER));
    expect(s.fulfilmentIds).toEqual([]);
    expect(shareUnits(587, s.share)).toBe(0);
  });

  it('a shipped line carries its price less its discount allocations of the lines worth', () => {
    const s = share(shipped([[{ id: 466157049, quantity: 1 }]]));
    expect(s.fulfilmentIds).toEqual(['255858046']);
    // 195.66 of 587.00: 58,700 units earn on 19,566.
    expect(shareUnits(58_700, s.share)).toBe(19_566);
  });

  it('fulfilments adding up to the whole order earn on exactly its whole amount, rounding once', () => {
    const lines = [466157049, 518995019, 703073504].map((id) => [{ id, quantity: 1 }]);
    const cumulative = [1, 2, 3].map((n) => shareUnits(1000, share(shipped(lines.slice(0, n))).share));
    // floor(1000 × 195.66/587), floor(1000 × 391.33/587), then all of it: 333 + 333 + 334.
    expect(cumulative).toEqual([333, 666, 1000]);
  });

  it('a line shipped twice is not worth twice', () => {
    const line = [{ id: 466157049, quantity: 1 }];
    expect(shareUnits(58_700, share(shipped([line, line])).share)).toBe(19_566);
  });

  it('part of a line quantity carries that part of the line', () => {
    const order = {
      line_items: [{ id: 1, price: '1650', quantity: 2, discount_allocations: [{ amount: '300' }] }],
      fulfillments: [{ id: 9, status: 'success', line_items: [{ id: 1, quantity: 1 }] }],
    };
    expect(shareUnits(3000, share(order).share)).toBe(1500);
  });

  it('a fulfilment line without a quantity is refused naming its path', () => {
    const order = { line_items: [], fulfillments: [{ id: 9, status: 'success', line_items: [{ id: 1 }] }] };
    expect((fulfilledShare(order) as SourceError).path).toBe('fulfillments.0.line_items.0.quantity');
  });
});
