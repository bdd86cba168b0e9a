/**
 * The GraphQL Admin API documents the client sends (Shopify's published schema: `orders` query with
 * the search syntax `updated_at:>=…`, `Order`, `Refund`, `RefundLineItem`, `OrderAdjustment`,
 * `RefundShippingLine`, `MoneyBag.shopMoney`, `LineItem`). Three documents keep each under Shopify's
 * 1000-point single-query ceiling: a page of orders with their refunds' ids only, then one refund at a
 * time (only those the ledger has not seen) with its line items and adjustments, and the line items of
 * an order the ledger has not seen that used a code.
 */
import { DEFAULT_SHOPIFY_API_VERSION } from '../index.js';

/**
 * The API version in the URL path (`/admin/api/<version>/graphql.json`) when the caller names none;
 * callers pass their source's `apiVersion` setting (the stage's version).
 */
export const ADMIN_API_VERSION = DEFAULT_SHOPIFY_API_VERSION;

/** Orders per page: 2 + 10 × an order's cost (about 50 points) stays under the 1000-point query ceiling. */
export const ORDERS_PAGE_SIZE = 10;
/** Nested limits; a connection that comes back full is read further (refund lines) or refused. */
export const SHIPPING_LINES_LIMIT = 5;
export const REFUNDS_LIMIT = 20;
// A refund query costs about 1 + 1 + (2 + 20 × 6) + 2 × (2 + 5 × 5) = 178 points (scalars such as a line's quantity and id cost nothing).
export const REFUND_LINES_PAGE_SIZE = 20;
export const ADJUSTMENTS_LIMIT = 5;

const MONEY = 'shopMoney { amount currencyCode }';

export const ORDERS_QUERY = `query ReconcileOrders($first: Int!, $after: String, $query: String!) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id
      name
      test
      createdAt
      processedAt
      updatedAt
      cancelledAt
      currencyCode
      taxesIncluded
      displayFinancialStatus
      customer { id }
      discountCodes
      subtotalPriceSet { ${MONEY} }
      totalTaxSet { ${MONEY} }
      totalPriceSet { ${MONEY} }
      shippingLines(first: ${SHIPPING_LINES_LIMIT}) { nodes { taxLines { priceSet { ${MONEY} } } } }
      refunds(first: ${REFUNDS_LIMIT}) { id createdAt }
    }
  }
}`;

export const REFUND_QUERY = `query ReconcileRefund($id: ID!, $after: String) {
  refund(id: $id) {
    id
    createdAt
    order { id }
    refundLineItems(first: ${REFUND_LINES_PAGE_SIZE}, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { subtotalSet { ${MONEY} } totalTaxSet { ${MONEY} } quantity lineItem { id isGiftCard } }
    }
    orderAdjustments(first: ${ADJUSTMENTS_LIMIT}) { nodes { amountSet { ${MONEY} } taxAmountSet { ${MONEY} } } }
    refundShippingLines(first: ${ADJUSTMENTS_LIMIT}) { nodes { subtotalAmountSet { ${MONEY} } taxAmountSet { ${MONEY} } } }
  }
}`;

/** Line items per page of an order's lines: 1 + (2 + 100 × 1) = 103 points (a line's id and quantity are scalars). */
export const ORDER_LINES_PAGE_SIZE = 100;

/**
 * An order's line items (`Order.lineItems`: `LineItem.id`, `quantity` as ordered), read only for an order
 * the ledger lacks that used a code: its redemption comes back once every line's quantity is refunded
 * (shared/redemption/usage.ts), as for the webhook's `line_items`. Apart from the orders page, whose cost
 * per order would otherwise grow with every line.
 */
export const ORDER_LINES_QUERY = `query ReconcileOrderLines($id: ID!, $after: String) {
  order(id: $id) {
    id
    lineItems(first: ${ORDER_LINES_PAGE_SIZE}, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { id quantity }
    }
  }
}`;

/**
 * Shopify's search syntax for the window (shopify.dev/docs/api/usage/search-syntax: comparators
 * `:>=` / `:<=`, date values quoted); inclusive on both ends.
 */
export function updatedBetween(since: Date, until: Date): string {
  return `updated_at:>='${since.toISOString()}' updated_at:<='${until.toISOString()}'`;
}
