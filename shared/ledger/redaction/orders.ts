import { GetCommand, scanKeyPrefix } from '../../dynamodb/index.js';
import { OrderRecord, orderKey, RefundRecord, refundKey } from '../records.js';
import { type RedactionTable, redactItem } from './item.js';

/**
 * What a privacy redaction takes from the order and refund records (docs/privacy.md): what identifies
 * the shop customer goes, the books stay. On an order: the shop customer id, the stored purchase event
 * and the byUnlinkedCustomer index's keys are removed; amounts, point figures, markers (built from the
 * order id), outcomes and the member id stay: the member and their points live in the membership
 * service, and a later refund must still take back what the order earned. On a refund: the stored
 * event loses its customer reference. A record under a live lease (being processed) is left and
 * reported busy.
 */

/**
 * Order attributes that identify the shop customer (the index's keys among them; a parked purchase's event,
 * which names them too: once redacted, `npm run reprocess` counts it not kept).
 */
export const ORDER_PERSONAL = ['externalId', 'purchaseEvent', 'unlinkedCustomer', 'purchasedAt', 'rejectedEvent'] as const;

/** Whether an order still holds anything a redaction removes (a second run skips the done ones). */
export function orderIdentifies(order: OrderRecord): boolean {
  return ORDER_PERSONAL.some((attr) => order[attr] !== undefined);
}

/** The shop an order was made in: its own `shopDomain`, else its stored purchase event's; undefined: unknown. */
export function orderShopDomain(order: OrderRecord): string | undefined {
  if (order.shopDomain !== undefined) return order.shopDomain;
  const purchaseEvent = order.purchaseEvent;
  if (purchaseEvent === undefined) return undefined;
  try {
    const named = (JSON.parse(purchaseEvent) as { delivery?: { shopDomain?: unknown } }).delivery?.shopDomain;
    return typeof named === 'string' ? named : undefined;
  } catch {
    return undefined;
  }
}

export async function readOrder(table: RedactionTable, source: string, orderId: string): Promise<OrderRecord | undefined> {
  const out = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: { pk: orderKey(source, orderId) }, ConsistentRead: true }),
  );
  return out.Item ? OrderRecord.parse(out.Item) : undefined;
}

/** The source's readable order records (a scan by key prefix: a shop's redaction is rare). */
export async function* scanOrders(table: RedactionTable, source: string): AsyncGenerator<OrderRecord> {
  for await (const item of scanKeyPrefix(table.client, table.tableName, `order#${encodeURIComponent(source)}#`, { consistentRead: true })) {
    const order = OrderRecord.safeParse(item);
    if (order.success) yield order.data;
  }
}

export interface OrderRedaction {
  /** false: the order is under a live lease (nothing of it changed). */
  order: boolean;
  refunds: number;
  /** The refunds under a live lease (their ids). */
  busyRefunds: string[];
}

/** Redacts the order's refunds, then the order. */
export async function redactOrder(table: RedactionTable, order: OrderRecord): Promise<OrderRedaction> {
  const result: OrderRedaction = { order: false, refunds: 0, busyRefunds: [] };
  for (const refundId of order.refundIds) {
    const done = await redactRefund(table, refundKey(order.source, order.orderId, refundId));
    if (done === 'busy') result.busyRefunds.push(refundId);
    else if (done) result.refunds += 1;
  }
  result.order = await redactItem(table, order.pk, ORDER_PERSONAL, {});
  return result;
}

async function redactRefund(table: RedactionTable, pk: string): Promise<boolean | 'busy'> {
  const out = await table.client.send(new GetCommand({ TableName: table.tableName, Key: { pk }, ConsistentRead: true }));
  if (!out.Item) return false;
  return redactRefundRecord(table, RefundRecord.parse(out.Item));
}

/** The customer a refund's stored event names (its `customer.externalId`), if any. */
export function refundCustomerId(refund: RefundRecord): string | undefined {
  try {
    const customer = (JSON.parse(refund.event) as { customer?: { externalId?: unknown } | null }).customer;
    return typeof customer?.externalId === 'string' ? customer.externalId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The refund records of one order id by key prefix: a source's unlinked returns (`<source>/unlinked/<id>`)
 * have no order record listing them all. A scan (a privacy request is rare).
 */
export async function* scanRefundsOf(table: RedactionTable, source: string, orderId: string): AsyncGenerator<RefundRecord> {
  const prefix = `refund#${encodeURIComponent(source)}#${encodeURIComponent(orderId)}#`;
  for await (const item of scanKeyPrefix(table.client, table.tableName, prefix, { consistentRead: true })) {
    const refund = RefundRecord.safeParse(item);
    if (refund.success) yield refund.data;
  }
}

/** The refund's stored event loses its customer reference; 'busy' under a live lease (nothing changed). */
export async function redactRefundRecord(table: RedactionTable, refund: RefundRecord): Promise<boolean | 'busy'> {
  const event = JSON.parse(refund.event) as Record<string, unknown>;
  // Amounts and ids of the refund and its order stay: a parked refund can still be accounted for.
  const kept = JSON.stringify({ ...event, customer: null });
  return (await redactItem(table, refund.pk, [], { event: kept })) ? true : 'busy';
}
