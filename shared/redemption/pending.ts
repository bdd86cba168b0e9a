import type { OrderRecord } from '../ledger/index.js';
import type { MemberDetail } from '../openapi/index.js';
import { parseMarker } from '../points/index.js';
import type { RedemptionDeps } from './protocol.js';

/**
 * Provisional points on the storefront points page (issue 53, 仮ポイント): the customer's orders whose
 * points are not earned yet, each with when they will be (`fulfilment`, or the ISO time). The service
 * computes points only when it grants them, so the figure is an estimate at the rate of the customer's
 * latest credit of this source (its history entry over the amount it was computed on): `null` when the
 * customer has none yet. What is granted at the moment is the service's own calculation.
 */
export interface PendingPoints {
  points: number | null;
  order: string;
  from: string;
}

/** History entries read to find the customer's latest credit (one page). */
const HISTORY_ROWS = 20;

export async function pendingPointsOf(
  deps: Pick<RedemptionDeps, 'source' | 'externalKey' | 'ledger' | 'openapi'>,
  member: MemberDetail,
  customerId: string,
): Promise<PendingPoints[]> {
  const orders = await deps.ledger.pendingEarns(deps.source, deps.externalKey, customerId);
  if (orders.length === 0) return [];
  const rate = await latestRate(deps, member.id);
  return orders
    .sort((a, b) => (a.purchasedAt ?? '').localeCompare(b.purchasedAt ?? ''))
    .map((o) => ({
      points: rate ? Number((BigInt(remainingOf(o)) * BigInt(rate.points)) / BigInt(rate.amount)) : null,
      order: orderNameOf(o),
      from: o.earnWhen === 'fulfilled' || o.earnWhen === undefined ? 'fulfilment' : o.earnWhen,
    }));
}

/**
 * What is still provisional: the order's amount as paid less the refunds before the moment, less the share
 * already shipped (a partial fulfilment credits it at once: shared/points/shares.ts; the largest is live).
 */
const remainingOf = (o: OrderRecord) =>
  Math.max(0, (o.earnBase?.amount ?? o.eligibleAmount ?? 0) - o.earnRefunded - Math.max(0, ...o.shippedShares.map(Number)));

function orderNameOf(o: OrderRecord): string {
  try {
    const event = JSON.parse(o.purchaseEvent ?? '{}') as { orderName?: unknown };
    if (typeof event.orderName === 'string' && event.orderName !== '') return event.orderName;
  } catch {
    // The id then.
  }
  return o.orderId;
}

/** The customer's latest credit of this source: its points over the amount it was computed on. */
async function latestRate(
  deps: Pick<RedemptionDeps, 'source' | 'ledger' | 'openapi'>,
  memberId: string,
): Promise<{ points: number; amount: number } | undefined> {
  try {
    const page = await deps.openapi.listPoints(memberId, { perPage: HISTORY_ROWS });
    for (const entry of page.points) {
      const marker = parseMarker(entry.remarks);
      if (marker?.kind !== 'order' || marker.source !== deps.source || entry.point <= 0) continue;
      const order = await deps.ledger.order({ source: marker.source, orderId: marker.orderId });
      if (order?.eligibleAmount) return { points: entry.point, amount: order.eligibleAmount };
    }
  } catch {
    // No estimate: the page still lists the orders.
  }
  return undefined;
}
