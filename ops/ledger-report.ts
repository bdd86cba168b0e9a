import type { Ledger, OrderRecord, RefundRecord, ReversalLedger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { purchaseMarker, refundMarker } from '../shared/points/index.js';
import { renderTable } from './table.js';

/** Point-history pages (1000 entries each) searched for the order's markers. */
const HISTORY_PAGES = 5;

export interface LedgerReport {
  found: boolean;
  lines: string[];
}

/** Every field of a ledger record, one per line in its own order (times also as dates): the operator's view of the truth. */
export function recordLines(record: OrderRecord | RefundRecord | Record<string, unknown>): string[] {
  return Object.entries(record).map(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return `    ${key}: ${key === 'leaseUntil' || key === 'ttl' ? `${text} (${new Date(Number(value) * (key === 'ttl' ? 1000 : 1)).toISOString()})` : text}`;
  });
}

/**
 * An order's ledger record, its refund records, the audit's reversals of its markers' extra entries, and
 * the point-history entries upstream that carry the order's markers or those reversals': what was
 * recorded next to what the membership service holds.
 */
export async function ledgerReport(
  ledger: Ledger,
  openapi: Pick<OpenApiClient, 'listPoints'>,
  source: string,
  orderId: string,
  reversals?: Pick<ReversalLedger, 'list'>,
): Promise<LedgerReport> {
  const order = await ledger.getOrder({ source, orderId });
  if (order === undefined) return { found: false, lines: [`no ledger record for ${source} order ${orderId}`] };
  const lines = [`order ${source} ${orderId}`, ...recordLines(order)];
  const refunds = await ledger.listRefunds({ source, orderId });
  for (const refund of refunds) lines.push('', `refund ${refund.refundId}`, ...recordLines(refund));
  const reversed = (await reversals?.list({ source, orderId })) ?? [];
  for (const r of reversed) lines.push('', `reversal of extra entry ${r.entryId} (${r.duplicatedMarker})`, ...recordLines(r));
  const reversalMarkers = new Set(reversed.map((r) => r.marker));

  const customerId = order.customerId ?? refunds.find((r) => r.customerId)?.customerId;
  lines.push('');
  if (customerId === undefined) {
    lines.push('upstream: no customer was found for this order, so no point history to show');
    return { found: true, lines };
  }
  const purchase = purchaseMarker(source, orderId);
  const refundPrefix = refundMarker(source, orderId, '');
  const entries: string[][] = [];
  for (let page = 1; page <= HISTORY_PAGES; page++) {
    const history = await openapi.listPoints(customerId, { page, perPage: 1000 });
    for (const p of history.points) {
      const remarks = p.remarks ?? '';
      if (remarks === purchase || remarks.startsWith(refundPrefix) || reversalMarkers.has(remarks)) {
        entries.push([p.created_at, p.point > 0 ? `+${p.point}` : String(p.point), p.title ?? '', remarks, p.expired_at ?? '-']);
      }
    }
    if (page >= history.last_page) break;
  }
  lines.push(
    `upstream point history of customer ${customerId} (entries carrying this order's markers and their reversals', newest first):`,
  );
  if (entries.length === 0) lines.push('  (none)');
  else lines.push(...renderTable(['created_at', 'point', 'title', 'remarks', 'expires'], entries, new Set([1])).map((l) => `  ${l}`));
  return { found: true, lines };
}
