import { scanReversals } from '../shared/ledger/index.js';
import type { ConsoleSource } from './source.js';

/** One of the audit's reversals as the console lists it: which entry was doubled, what was taken back, what could not be. */
export interface ReversalView {
  createdAt: string;
  source: string;
  customer: string;
  order: string | null;
  marker: string;
  entry: string;
  entryPoints: number;
  reversed: number | null;
  shortfall: number | null;
  state: string;
  why: string | null;
}

/** Every reversal record of the ledger table, newest first (a scan, like the redemptions). */
export async function listReversals(source: Pick<ConsoleSource, 'ledger'>, customer?: string): Promise<ReversalView[]> {
  const views: ReversalView[] = [];
  for (const r of await scanReversals(source.ledger.client, source.ledger.tableName)) {
    if (customer !== undefined && r.memberId !== customer) continue;
    views.push({
      createdAt: r.createdAt,
      source: r.source,
      customer: r.memberId,
      order: r.orderId ?? null,
      marker: r.duplicatedMarker,
      entry: r.entryId,
      entryPoints: r.entryPoint,
      reversed: r.pointsReversed ?? null,
      shortfall: r.shortfall ?? null,
      state: r.state === 'done' ? (r.outcome ?? 'done') : r.needsReconcile ? 'in_doubt' : 'pending',
      why: r.reason ?? r.lastError ?? null,
    });
  }
  return views.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
