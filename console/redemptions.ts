import { scanRedemptions } from '../shared/ledger/index.js';
import type { ConsoleSource } from './source.js';

/** A redemption as the console lists it beside the orders: ids and amounts, its state and why. */
export interface RedemptionView {
  createdAt: string;
  source: string;
  customer: string;
  request: string;
  points: number;
  value: string;
  currency: string;
  code: string;
  state: string;
  order: string | null;
  returned: number | null;
  why: string | null;
  expiresAt: string;
}

/** Every redemption record of the ledger table, newest first (a scan, like the order list). */
export async function listRedemptions(source: Pick<ConsoleSource, 'ledger'>, customer?: string): Promise<RedemptionView[]> {
  const views: RedemptionView[] = [];
  for (const r of await scanRedemptions(source.ledger.client, source.ledger.tableName)) {
    if (customer !== undefined && r.customerId !== customer) continue;
    views.push({
      createdAt: r.createdAt,
      source: r.source,
      customer: r.customerId,
      request: r.requestId,
      points: r.points,
      value: r.value,
      currency: r.currency,
      code: r.code,
      state: r.state,
      order: r.orderId ?? null,
      returned: r.returnedPoints ?? null,
      why: r.returnReason ?? r.reason ?? r.lastError ?? null,
      expiresAt: r.expiresAt,
    });
  }
  return views.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
