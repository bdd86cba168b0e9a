import type { Field } from './cost.js';
import { cursorOf, orderLinesNode, orderNode, positionOf, refundNode, orderSearch } from './graphql.js';
import type { ShopStore } from './store.js';

/** The reconciliation's and the sweep's documents' data: `orders` (search on updated_at or discount_code, cursor pages), `order` (its line items) and `refund`. */

export type DataAnswer = { data: unknown; returned: number } | { error: string };

export function answerOrders(store: ShopStore, top: Field, vars: Record<string, unknown>): DataAnswer {
  const filter = orderSearch(typeof vars.query === 'string' ? vars.query : '');
  if (typeof filter !== 'function') return { error: filter.error };
  const first = typeof vars.first === 'number' ? vars.first : Number(top.args.first);
  const start = positionOf(vars.after);
  if (!Number.isInteger(first) || first < 1 || first > 250 || start === undefined) {
    return { error: 'first must be 1..250 and after a cursor from pageInfo' };
  }
  const matching = store.list().filter((s) => filter(s));
  const page = matching.slice(start, start + first);
  const end = start + page.length;
  const data = {
    orders: {
      pageInfo: { hasNextPage: end < matching.length, endCursor: page.length > 0 ? cursorOf(end) : null },
      nodes: page.map((s) => orderNode(s, { shippingLines: limitOf(top, 'shippingLines', 250), refunds: limitOf(top, 'refunds', 250) })),
    },
  };
  return { data, returned: page.length };
}

export function answerRefund(store: ShopStore, top: Field, vars: Record<string, unknown>): DataAnswer {
  const id = typeof vars.id === 'string' ? /^gid:\/\/shopify\/Refund\/(\d+)$/.exec(vars.id)?.[1] : undefined;
  const found = id === undefined ? undefined : store.findRefund(id);
  const after = positionOf(vars.after) ?? 0;
  const first = limitOf(top, 'refundLineItems', 250);
  return { data: { refund: found ? refundNode(found.stored, found.refund, { first, after }) : null }, returned: 1 };
}

/** `order(id:)`: the order's line items (the reconcile reads them for an order that used a code). */
export function answerOrder(store: ShopStore, top: Field, vars: Record<string, unknown>): DataAnswer {
  const id = typeof vars.id === 'string' ? /^gid:\/\/shopify\/Order\/(\d+)$/.exec(vars.id)?.[1] : undefined;
  const found = id === undefined ? undefined : store.get(id);
  const after = positionOf(vars.after) ?? 0;
  const first = limitOf(top, 'lineItems', 250);
  return { data: { order: found ? orderLinesNode(found, { first, after }) : null }, returned: 1 };
}

/** The `first` of a nested field of the top selection (or a default). */
function limitOf(top: Field, name: string, fallback: number): number {
  const queue = [...top.children];
  for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
    if (f.name === name) {
      const n = Number(f.args.first);
      return Number.isInteger(n) && n > 0 ? n : fallback;
    }
    queue.push(...f.children);
  }
  return fallback;
}
