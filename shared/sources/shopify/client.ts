import { ShopifyAdminError } from './errors.js';
import { createGraphqlCaller, type GraphqlCallerOptions } from './graphql.js';
import { ORDER_LINES_QUERY, ORDERS_PAGE_SIZE, ORDERS_QUERY, REFUND_QUERY, updatedBetween } from './queries.js';
import {
  type AdminOrder,
  type AdminOrderLine,
  type AdminRefund,
  type Cost,
  legacyId,
  OrderLinesAnswer,
  OrdersPage,
  RefundAnswer,
} from './schemas.js';

/**
 * A client of Shopify's GraphQL Admin API for reconciliation: pages of orders and refunds with every
 * line item, each document sent by graphql.ts (the bucket, the throttle, the HTTP stack).
 *
 * It trusts the server no more than the Open API client trusts its own, over the same HTTP stack
 * (shared/http-client): an answer over 1 MiB is cut off, every call has an overall deadline, and
 * pagination ends on a repeated cursor, at a page limit, and at a cap on a refund's line items.
 */

export interface ShopifyAdminClientOptions extends GraphqlCallerOptions {
  /** Pages of orders one `orders()` reads at most (default 500: 5,000 orders, more than a run's time allows). */
  maxPages?: number;
  /** Line items one refund may have (default 1,000: 50 pages). */
  maxRefundLineItems?: number;
}

export const DEFAULT_MAX_ORDER_PAGES = 500;
export const DEFAULT_MAX_REFUND_LINE_ITEMS = 1_000;

export interface OrdersWindow {
  since: Date;
  until: Date;
}

export interface ShopifyAdminClient {
  /** Pages of orders updated in the window, oldest update first. */
  orders(window: OrdersWindow): AsyncGenerator<AdminOrder[]>;
  /** One refund with every line item; undefined when Shopify no longer has it. */
  refund(refundGid: string): Promise<AdminRefund | undefined>;
  /** An order's line items (id, quantity ordered), every page; undefined when Shopify no longer has it. */
  orderLines(orderGid: string): Promise<AdminOrderLine[] | undefined>;
  /** Any document (subscriptions.ts): its `data`, after the same throttling, renewal and error handling. */
  graphql(query: string, variables: Record<string, unknown>): Promise<unknown>;
  /** The bucket as the last answer reported it. */
  lastThrottleStatus(): Cost['throttleStatus'] | undefined;
  close(): Promise<void>;
}

export function createShopifyAdminClient(opts: ShopifyAdminClientOptions): ShopifyAdminClient {
  const maxPages = opts.maxPages ?? DEFAULT_MAX_ORDER_PAGES;
  const maxRefundLineItems = opts.maxRefundLineItems ?? DEFAULT_MAX_REFUND_LINE_ITEMS;
  const graphql = createGraphqlCaller(opts);
  const post = graphql.post;

  function parsed<T>(
    schema: {
      safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
    },
    data: unknown,
  ): T {
    const result = schema.safeParse(data);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    throw new ShopifyAdminError(
      'invalid_response',
      `unexpected answer at ${(issue?.path ?? []).map(String).join('.')}: ${issue?.message ?? 'invalid'}`,
    );
  }

  return {
    graphql: post,
    async *orders(window) {
      const query = updatedBetween(window.since, window.until);
      const cursors = cursorGuard('orders');
      let pages = 0;
      let after: string | null = null;
      for (;;) {
        if (++pages > maxPages) throw new ShopifyAdminError('invalid_response', `orders: more than ${maxPages} pages, not read further`);
        const page: OrdersPage = parsed(OrdersPage, await post(ORDERS_QUERY, { first: ORDERS_PAGE_SIZE, after, query }));
        yield page.orders.nodes;
        if (!page.orders.pageInfo.hasNextPage || page.orders.pageInfo.endCursor === null) return;
        after = cursors.next(page.orders.pageInfo.endCursor);
      }
    },
    async refund(refundGid) {
      const cursors = cursorGuard(`the line items of ${refundGid}`);
      let after: string | null = null;
      let refund: AdminRefund | undefined;
      for (;;) {
        const answer: RefundAnswer = parsed(RefundAnswer, await post(REFUND_QUERY, { id: refundGid, after }));
        const r = answer.refund;
        if (r === null) return undefined;
        refund ??= {
          id: r.id,
          createdAt: r.createdAt,
          orderId: r.order.id,
          refundLineItems: [],
          orderAdjustments: r.orderAdjustments.nodes,
          refundShippingLines: r.refundShippingLines.nodes,
        };
        refund.refundLineItems.push(...r.refundLineItems.nodes);
        if (!r.refundLineItems.pageInfo.hasNextPage || r.refundLineItems.pageInfo.endCursor === null) return refund;
        if (refund.refundLineItems.length >= maxRefundLineItems) {
          throw new ShopifyAdminError(
            'invalid_response',
            `refund ${refundGid} has more than ${maxRefundLineItems} line items: not read further`,
          );
        }
        after = cursors.next(r.refundLineItems.pageInfo.endCursor);
      }
    },
    async orderLines(orderGid) {
      const cursors = cursorGuard(`the line items of ${orderGid}`);
      const lines: AdminOrderLine[] = [];
      let after: string | null = null;
      for (;;) {
        const answer: OrderLinesAnswer = parsed(OrderLinesAnswer, await post(ORDER_LINES_QUERY, { id: orderGid, after }));
        const order = answer.order;
        if (order === null) return undefined;
        lines.push(...order.lineItems.nodes);
        const { hasNextPage, endCursor } = order.lineItems.pageInfo;
        if (!hasNextPage || endCursor === null) return lines;
        // The same cap as a refund's lines (the event carries at most that many).
        if (lines.length >= maxRefundLineItems) {
          throw new ShopifyAdminError(
            'invalid_response',
            `order ${orderGid} has more than ${maxRefundLineItems} line items: not read further`,
          );
        }
        after = cursors.next(endCursor);
      }
    },
    lastThrottleStatus: graphql.lastThrottleStatus,
    close: graphql.close,
  };
}

/** A cursor Shopify already gave (a server looping on one page) is an error, never another request. */
function cursorGuard(what: string) {
  const seen = new Set<string>();
  return {
    next(cursor: string): string {
      if (seen.has(cursor)) throw new ShopifyAdminError('invalid_response', `${what}: Shopify repeated the cursor of an earlier page`);
      seen.add(cursor);
      return cursor;
    },
  };
}

export { legacyId };
