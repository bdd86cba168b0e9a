import type { CustomerRecords } from '../customers/index.js';
import type { Ledger } from '../ledger/index.js';

/**
 * Shopify's `customers/data_request`: what the bridge holds for a shop customer, for the operator to
 * send to the shop (docs/privacy.md). Ids, outcomes and point figures: no stored body is copied out.
 */

export interface HeldOrder {
  orderId: string;
  outcome: string;
  /** The member credited (the membership service's id), when one was found. */
  memberId: string | null;
  points: number | null;
  refunds: { refundId: string; outcome: string; points: number | null }[];
  /** Whether the purchase event (ids, shop, order name) is still held: an order waiting for the customer's link. */
  purchaseEventHeld: boolean;
}

export interface HeldData {
  source: string;
  customerId: string;
  orders: HeldOrder[];
  /** The customer's enrolment, when the bridge enrolled them (or found them a member). */
  enrolment: { outcome: string; memberId: string | null } | null;
  /** Quarantined deliveries that name the customer or their orders (entry ids: `npm run quarantine -- show`). */
  quarantined: string[];
}

export interface ReportDeps {
  ledger: Pick<Ledger, 'listUnlinkedOrders' | 'getOrder' | 'listRefunds'>;
  records: Pick<CustomerRecords, 'get'>;
}

export async function describeCustomerData(
  deps: ReportDeps,
  input: { source: string; externalKey: string; customerId: string; orderIds: readonly string[]; quarantined: string[] },
): Promise<HeldData> {
  const waiting = await deps.ledger.listUnlinkedOrders({ ...input, externalId: input.customerId, since: '0000' });
  const orders: HeldOrder[] = [];
  for (const orderId of new Set([...input.orderIds, ...waiting.map((w) => w.orderId)])) {
    const ref = { source: input.source, orderId };
    const order = await deps.ledger.getOrder(ref);
    if (order?.externalId !== input.customerId) continue;
    const refunds = await deps.ledger.listRefunds(ref);
    orders.push({
      orderId,
      outcome: order.outcome ?? order.state,
      memberId: order.customerId ?? null,
      points: order.pointsCredited ?? order.pointsHint ?? null,
      refunds: refunds.map((r) => ({ refundId: r.refundId, outcome: r.outcome ?? r.state, points: r.pointsDebited ?? null })),
      purchaseEventHeld: order.purchaseEvent !== undefined,
    });
  }
  const record = await deps.records.get({ source: input.source, customerId: input.customerId });
  return {
    source: input.source,
    customerId: input.customerId,
    orders,
    enrolment: record ? { outcome: record.outcome ?? record.state, memberId: record.memberId ?? null } : null,
    quarantined: input.quarantined,
  };
}
