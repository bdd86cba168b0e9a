import type { OrderRecord } from '../ledger/index.js';
import type { MemberDetail } from '../openapi/index.js';
import { parseMarker } from '../points/index.js';
import type { PendingSource } from './pending-source.js';
import type { RedemptionDeps } from './protocol.js';

/**
 * Provisional points on the storefront points page (issue 53, 仮ポイント): the customer's orders whose
 * points are not earned yet, each with when they will be (`fulfilment`, or the ISO time). The service
 * computes points only when it grants them, so the figure is an estimate at the rate of the customer's
 * latest credit of this source (its history entry over the amount it was computed on): `null` when the
 * customer has none yet. What is granted at the moment is the service's own calculation.
 *
 * The same member's provisional sales of other sources (`pendingElsewhere`: a till's sales earned `days`
 * after them) are listed too. The member is the one the shop's customer is linked to; its record holds
 * the till's customer code under that source's external key (or as its unique_id), which is what the
 * till sale's provisional order is indexed by (its member id is only written at the credit).
 */
export interface PendingPoints {
  points: number | null;
  order: string;
  from: string;
}

/** History entries read to find the customer's latest credit (one page). */
const HISTORY_ROWS = 20;

type PendingDeps = Pick<RedemptionDeps, 'source' | 'externalKey' | 'ledger' | 'openapi' | 'earnsLater' | 'pendingElsewhere'>;

export async function pendingPointsOf(deps: PendingDeps, member: MemberDetail, customerId: string): Promise<PendingPoints[]> {
  const own = !deps.earnsLater ? [] : await deps.ledger.pendingEarns(deps.source, deps.externalKey, customerId);
  const orders = [...own];
  for (const other of deps.pendingElsewhere ?? []) {
    const id = customerIdOf(member, other);
    if (id !== undefined) orders.push(...(await deps.ledger.pendingEarns(other.source, other.externalKey, id)));
  }
  if (orders.length === 0) return [];
  const rates = await latestRates(deps, member.id, new Set(orders.map((o) => o.source)));
  return orders
    .sort((a, b) => (a.purchasedAt ?? '').localeCompare(b.purchasedAt ?? ''))
    .map((o) => {
      const rate = rates.get(o.source) ?? rates.get(ANY);
      return {
        points: rate ? Number((BigInt(remainingOf(o)) * BigInt(rate.points)) / BigInt(rate.amount)) : null,
        order: orderNameOf(o),
        from: o.earnWhen === 'fulfilled' || o.earnWhen === undefined ? 'fulfilment' : o.earnWhen,
      };
    });
}

/** The id the member's record holds for the source's customer (none: the member has no customer there). */
function customerIdOf(member: MemberDetail, source: PendingSource): string | undefined {
  const id = source.memberLookup === 'unique_id' ? member.unique_id : member.external_ids?.[source.externalKey];
  return typeof id === 'string' && id !== '' ? id : undefined;
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

/** The key of the rate of the customer's latest credit of any source: the estimate of a source with none yet. */
const ANY = '';

/**
 * The customer's latest credit of each of `sources` (one history page): its points over the amount it was
 * computed on; under `ANY`, the latest credit of any source (the member's rate, for a source with none yet).
 */
async function latestRates(
  deps: Pick<RedemptionDeps, 'ledger' | 'openapi'>,
  memberId: string,
  sources: ReadonlySet<string>,
): Promise<Map<string, { points: number; amount: number }>> {
  const rates = new Map<string, { points: number; amount: number }>();
  try {
    const page = await deps.openapi.listPoints(memberId, { perPage: HISTORY_ROWS });
    for (const entry of page.points) {
      const marker = parseMarker(entry.remarks);
      if (marker?.kind !== 'order' || entry.point <= 0) continue;
      const wanted = sources.has(marker.source) && !rates.has(marker.source);
      if (!wanted && rates.has(ANY)) continue;
      const order = await deps.ledger.order({ source: marker.source, orderId: marker.orderId });
      if (!order?.eligibleAmount) continue;
      const rate = { points: entry.point, amount: order.eligibleAmount };
      if (wanted) rates.set(marker.source, rate);
      if (!rates.has(ANY)) rates.set(ANY, rate);
      if (rates.size > sources.size) break;
    }
  } catch {
    // No estimate: the page still lists the orders.
  }
  return rates;
}
