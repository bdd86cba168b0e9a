import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type CustomerRecords, customerKey } from '../customers/index.js';
import { DeleteCommand, GetCommand, isConditionFailure, scanKeyPrefix, UpdateCommand } from '../dynamodb/index.js';
import { type Ledger, linkMarkKey, OrderRecord, orderKey, RefundRecord, refundKey } from '../ledger/index.js';

/**
 * A privacy redaction on the ledger table (docs/privacy.md): what identifies the shop customer goes, the
 * books stay. On each order: the shop customer id, the stored purchase event and the byUnlinkedCustomer
 * index's keys are removed; amounts, point figures, markers (built from the order id), outcomes and the
 * member id stay: the member and their points live in the membership service, and a later refund must
 * still take back what the order earned. On each refund: the stored event loses its customer reference.
 * The customer record (`customer#…`, keyed by the shop customer id) is deleted, and so is the mark a
 * recent link left (`linked#…`, kept a day, keyed by it too); a tombstone keyed by a digest of the id keeps
 * a replayed customers/create from enrolling the customer again. A record under a live
 * lease (being processed) is left and reported busy: the caller retries, nothing is half-done silently.
 */

export interface LedgerRedactDeps {
  client: DynamoDBDocumentClient;
  tableName: string;
  ledger: Pick<Ledger, 'listUnlinkedOrders'>;
  /** customers/redact leaves a tombstone: a replayed customers/create enrols nobody. */
  records: Pick<CustomerRecords, 'markRedacted'>;
  clock: () => number;
  /** The invocation's time left (undefined outside one): a shop's redaction stops in time and resumes on retry. */
  remainingMs?: () => number | undefined;
}

/** Left for the records in hand, the quarantine and the request's record when a shop's redaction stops. */
export const REDACTION_RESERVE_MS = 10_000;

export interface LedgerRedaction {
  orders: number;
  refunds: number;
  customers: number;
  /** Records under a lease now (`order <id>`, `refund <order>/<id>`): try again later. */
  busy: string[];
  /** Stopped for want of time (shop/redact of a large ledger): the next pass skips what is done. */
  stopped?: boolean;
}

/** Order attributes that identify the shop customer (the index's keys among them). */
const ORDER_PERSONAL = ['externalId', 'purchaseEvent', 'unlinkedCustomer', 'purchasedAt'] as const;

/** From the earliest time the index holds. */
const EVER = '0000';

const empty = (): LedgerRedaction => ({ orders: 0, refunds: 0, customers: 0, busy: [] });

/** customers/redact: the orders the request names and those still waiting for the customer, and the customer record. */
export async function redactCustomerRecords(
  deps: LedgerRedactDeps,
  input: { source: string; externalKey: string; customerId: string; orderIds: readonly string[] },
): Promise<LedgerRedaction> {
  const result = empty();
  const waiting = await deps.ledger.listUnlinkedOrders({ ...input, externalId: input.customerId, since: EVER });
  for (const orderId of new Set([...input.orderIds, ...waiting.map((w) => w.orderId)])) {
    const order = await readOrder(deps, orderKey(input.source, orderId));
    // Only the customer's own orders: an id named for another customer (or a guest order) is not touched.
    if (order?.externalId !== input.customerId) continue;
    await redactOrder(deps, order, result);
  }
  const ref = { source: input.source, customerId: input.customerId };
  // The tombstone first: a customers/create replayed meanwhile finds it, or its record is deleted here.
  await deps.records.markRedacted(ref);
  if (await deleteCustomerRecord(deps, customerKey(ref))) result.customers += 1;
  await deleteCustomerRecord(deps, linkMarkKey(input.source, input.externalKey, input.customerId));
  return result;
}

/**
 * shop/redact: the orders (with their refunds) and customer records of the source that this shop's
 * deliveries made. Orders name their shop (`shopDomain`; a waiting order in its stored purchase event),
 * customer records too (`shopDomain`). A record naming no shop (made before records named it) is the
 * shop's only when `unattributed` says so: the source's `shopDomains` lists this shop alone. Otherwise
 * an unknown shop is not this shop: a signed shop/redact naming any other shop removes nothing of ours.
 * Link marks (`linked#…`, kept a day) name no shop: they go only with the records naming none.
 */
export async function redactShopRecords(
  deps: LedgerRedactDeps,
  input: { source: string; shopDomain: string; unattributed: boolean },
): Promise<LedgerRedaction> {
  const result = empty();
  const part = encodeURIComponent(input.source);
  const outOfTime = () => (deps.remainingMs?.() ?? Number.POSITIVE_INFINITY) < REDACTION_RESERVE_MS;
  for await (const item of scanKeyPrefix(deps.client, deps.tableName, `order#${part}#`, { consistentRead: true })) {
    const order = OrderRecord.safeParse(item);
    // Done ones are skipped before the clock is asked: a resumed pass gets through them at once.
    if (!order.success || !identifies(order.data) || !isShops(shopOf(order.data, input.shopDomain), input.unattributed)) continue;
    if (outOfTime()) return { ...result, stopped: true };
    await redactOrder(deps, order.data, result);
  }
  for await (const item of scanKeyPrefix(deps.client, deps.tableName, `customer#${part}#`, { consistentRead: true })) {
    const named = typeof item.shopDomain === 'string' ? item.shopDomain : undefined;
    const shop = named === undefined ? 'unknown' : named === input.shopDomain ? 'same' : 'other';
    if (!isShops(shop, input.unattributed)) continue;
    if (outOfTime()) return { ...result, stopped: true };
    if (await deleteCustomerRecord(deps, String(item.pk))) result.customers += 1;
  }
  // A link mark names no shop (a day's record): only the shop the source serves alone takes them.
  if (!input.unattributed) return result;
  for await (const item of scanKeyPrefix(deps.client, deps.tableName, `linked#${part}#`, { consistentRead: true })) {
    if (outOfTime()) return { ...result, stopped: true };
    await deleteCustomerRecord(deps, String(item.pk));
  }
  return result;
}

/** Whether an order still holds anything this redaction removes (a second run skips the done ones). */
function identifies(order: OrderRecord): boolean {
  return ORDER_PERSONAL.some((attr) => order[attr] !== undefined);
}

type ShopOf = 'same' | 'other' | 'unknown';

const isShops = (shop: ShopOf, unattributed: boolean) => shop === 'same' || (shop === 'unknown' && unattributed);

function shopOf(order: OrderRecord, shopDomain: string): ShopOf {
  if (order.shopDomain !== undefined) return order.shopDomain === shopDomain ? 'same' : 'other';
  const purchaseEvent = order.purchaseEvent;
  if (purchaseEvent === undefined) return 'unknown';
  try {
    const named = (JSON.parse(purchaseEvent) as { delivery?: { shopDomain?: unknown } }).delivery?.shopDomain;
    if (typeof named !== 'string') return 'unknown';
    return named === shopDomain ? 'same' : 'other';
  } catch {
    return 'unknown';
  }
}

async function redactOrder(deps: LedgerRedactDeps, order: OrderRecord, result: LedgerRedaction): Promise<void> {
  for (const refundId of order.refundIds) {
    const done = await redactRefund(deps, refundKey(order.source, order.orderId, refundId));
    if (done === 'busy') result.busy.push(`refund ${order.orderId}/${refundId}`);
    else if (done) result.refunds += 1;
  }
  if (await redactItem(deps, order.pk, ORDER_PERSONAL, {})) result.orders += 1;
  else result.busy.push(`order ${order.orderId}`);
}

async function readOrder(deps: LedgerRedactDeps, pk: string): Promise<OrderRecord | undefined> {
  const out = await deps.client.send(new GetCommand({ TableName: deps.tableName, Key: { pk }, ConsistentRead: true }));
  return out.Item ? OrderRecord.parse(out.Item) : undefined;
}

async function redactRefund(deps: LedgerRedactDeps, pk: string): Promise<boolean | 'busy'> {
  const out = await deps.client.send(new GetCommand({ TableName: deps.tableName, Key: { pk }, ConsistentRead: true }));
  if (!out.Item) return false;
  const refund = RefundRecord.parse(out.Item);
  const event = JSON.parse(refund.event) as Record<string, unknown>;
  // Amounts and ids of the refund and its order stay: a parked refund can still be accounted for.
  const kept = JSON.stringify({ ...event, customer: null });
  return (await redactItem(deps, pk, [], { event: kept })) ? true : 'busy';
}

async function deleteCustomerRecord(deps: LedgerRedactDeps, pk: string): Promise<boolean> {
  const deleted = await deps.client.send(new DeleteCommand({ TableName: deps.tableName, Key: { pk }, ReturnValues: 'ALL_OLD' }));
  return (deleted as { Attributes?: unknown }).Attributes !== undefined;
}

/** Removes `remove` and sets `set` on an item no live lease holds; false when one does. */
async function redactItem(deps: LedgerRedactDeps, pk: string, remove: readonly string[], set: Record<string, string>): Promise<boolean> {
  const now = deps.clock();
  const names: Record<string, string> = { '#owner': 'leaseOwner', '#until': 'leaseUntil' };
  const values: Record<string, unknown> = { ':at': new Date(now).toISOString(), ':now': now };
  const sets = ['redactedAt = :at'];
  remove.forEach((attr, i) => {
    names[`#r${i}`] = attr;
  });
  Object.entries(set).forEach(([attr, value], i) => {
    names[`#s${i}`] = attr;
    values[`:s${i}`] = value;
    sets.push(`#s${i} = :s${i}`);
  });
  const removes = remove.length > 0 ? ` REMOVE ${remove.map((_, i) => `#r${i}`).join(', ')}` : '';
  try {
    await deps.client.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: { pk },
        UpdateExpression: `SET ${sets.join(', ')}${removes}`,
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#owner) OR #until < :now)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}
