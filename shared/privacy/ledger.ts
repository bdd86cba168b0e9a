import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CustomerRecords } from '../customers/index.js';
import { createLedgerRedactor, type Ledger, type LedgerRedactor, type OrderRecord } from '../ledger/index.js';

/**
 * A privacy redaction on the ledger table (docs/privacy.md): what identifies the shop customer goes, the
 * books stay. Which attributes of each record identify the customer, and how each is removed, is the
 * ledger's (shared/ledger/redaction: an order loses its customer id, stored purchase event and index
 * keys; a refund's event its customer; the customer record and a recent link's mark are deleted); this
 * module decides which records a request concerns. A tombstone keyed by a digest of the id keeps a
 * replayed customers/create from enrolling the customer again. A record under a live lease (being
 * processed) is left and reported busy: the caller retries, nothing is half-done silently.
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

/** From the earliest time the index holds. */
const EVER = '0000';

const empty = (): LedgerRedaction => ({ orders: 0, refunds: 0, customers: 0, busy: [] });

/** customers/redact: the orders the request names and those still waiting for the customer, and the customer record. */
export async function redactCustomerRecords(
  deps: LedgerRedactDeps,
  input: { source: string; externalKey: string; customerId: string; orderIds: readonly string[] },
): Promise<LedgerRedaction> {
  const records = createLedgerRedactor(deps);
  const result = empty();
  const waiting = await deps.ledger.listUnlinkedOrders({ ...input, externalId: input.customerId, since: EVER });
  for (const orderId of new Set([...input.orderIds, ...waiting.map((w) => w.orderId)])) {
    const order = await records.readOrder(input.source, orderId);
    // Only the customer's own orders: an id named for another customer (or a guest order) is not touched.
    if (order?.externalId !== input.customerId) continue;
    await redactOrder(records, order, result);
  }
  const ref = { source: input.source, customerId: input.customerId };
  // The tombstone first: a customers/create replayed meanwhile finds it, or its record is deleted here.
  await deps.records.markRedacted(ref);
  if (await records.deleteCustomerRecord(ref)) result.customers += 1;
  await records.deleteLinkMark({ source: input.source, externalKey: input.externalKey, externalId: input.customerId });
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
  const records = createLedgerRedactor(deps);
  const result = empty();
  const outOfTime = () => (deps.remainingMs?.() ?? Number.POSITIVE_INFINITY) < REDACTION_RESERVE_MS;
  const isShops = (named: string | undefined) => (named === undefined ? input.unattributed : named === input.shopDomain);
  for await (const order of records.scanOrders(input.source)) {
    // Done ones are skipped before the clock is asked: a resumed pass gets through them at once.
    if (!records.orderIdentifies(order) || !isShops(records.orderShopDomain(order))) continue;
    if (outOfTime()) return { ...result, stopped: true };
    await redactOrder(records, order, result);
  }
  for await (const customer of records.scanCustomerRecords(input.source)) {
    if (!isShops(customer.shopDomain)) continue;
    if (outOfTime()) return { ...result, stopped: true };
    if (await records.deleteScanned(customer)) result.customers += 1;
  }
  // A link mark names no shop (a day's record): only the shop the source serves alone takes them.
  if (!input.unattributed) return result;
  for await (const mark of records.scanLinkMarks(input.source)) {
    if (outOfTime()) return { ...result, stopped: true };
    await records.deleteScanned(mark);
  }
  return result;
}

async function redactOrder(records: LedgerRedactor, order: OrderRecord, result: LedgerRedaction): Promise<void> {
  const done = await records.redactOrder(order);
  result.refunds += done.refunds;
  for (const refundId of done.busyRefunds) result.busy.push(`refund ${order.orderId}/${refundId}`);
  if (done.order) result.orders += 1;
  else result.busy.push(`order ${order.orderId}`);
}
