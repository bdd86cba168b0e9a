import { isSettlement } from '../shared/audit/index.js';
import type { Ledger, OrderRecord, RefundRecord, ReversalLedger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { bonusMarker, bonusReturnMarker, purchaseMarker, refundMarker, shareOrderId } from '../shared/points/index.js';
import { renderTable } from './table.js';
import { formatJst, jstIfInstant } from '../shared/time/index.js';

/** Point-history pages (1000 entries each) searched for the order's markers. */
const HISTORY_PAGES = 5;

export interface LedgerReport {
  found: boolean;
  lines: string[];
}

/** Fields holding a time as an epoch number, and its unit in ms: printed as kept, with their time in Japan time. */
const TIME_FIELDS: Readonly<Record<string, number>> = { leaseUntil: 1, inDoubtUntil: 1, inDoubtSince: 1, ttl: 1000 };

/**
 * Every field of a ledger record, one per line in its own order: the operator's view of the truth. Its
 * times in Japan time (the record keeps ISO UTC); the epoch numbers as kept, with their time.
 */
export function recordLines(record: OrderRecord | RefundRecord | Record<string, unknown>): string[] {
  return Object.entries(record).map(([key, value]) => {
    const unit = TIME_FIELDS[key];
    if (unit !== undefined && typeof value === 'number') return `    ${key}: ${String(value)} (${formatJst(value * unit)})`;
    // Nested too (a refund's booking, the activity list): every instant in it.
    return `    ${key}: ${typeof value === 'string' ? jstIfInstant(value) : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? jstIfInstant(v) : v))}`;
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
  // Each campaign's bonus (issue 53): its record holds the grant and the refunds' claw-backs.
  for (const campaign of order.campaigns ?? []) {
    const bonus = await ledger.getBonus({ source, orderId, campaignId: campaign.id });
    lines.push('', `campaign bonus ${campaign.id} (${campaign.title})`, ...(bonus ? recordLines(bonus) : ['    (not granted yet)']));
  }
  // Each shipped share of an order shipped in parts (shared/points/shares.ts): its own order, and its take-back.
  const shares = order.shippedShares.map((amount) => shareOrderId(orderId, Number(amount)));
  for (const share of shares) {
    const record = await ledger.getOrder({ source, orderId: share });
    lines.push('', `shipped share ${share}`, ...(record ? recordLines(record) : ['    (not credited yet)']));
    for (const refund of await ledger.listRefunds({ source, orderId: share })) {
      lines.push('', `shipped share ${share}: refund ${refund.refundId}`, ...recordLines(refund));
    }
  }
  const reversed = (await reversals?.list({ source, orderId })) ?? [];
  for (const r of reversed) {
    const title = isSettlement(r.entryId)
      ? `shortfall of refund ${r.refundId ?? '-'} settled by the audit (its clamp came after a double of ${r.duplicatedMarker})`
      : `reversal of extra entry ${r.entryId} (${r.duplicatedMarker})`;
    lines.push('', title, ...recordLines(r));
  }
  const reversalMarkers = new Set(reversed.map((r) => r.marker));

  const customerId = order.customerId ?? refunds.find((r) => r.customerId)?.customerId;
  lines.push('');
  if (customerId === undefined && order.inDoubtMemberId === undefined) {
    lines.push('upstream: no customer was found for this order, so no point history to show');
    return { found: true, lines };
  }
  if (customerId !== undefined) {
    lines.push(
      `upstream point history of customer ${customerId} (entries carrying this order's markers and their reversals', newest first; the service's clock):`,
    );
    lines.push(...(await markedEntries(openapi, customerId, source, [orderId, ...shares], reversalMarkers)));
  }
  // A call in doubt went to this member: its entry lands there, whoever a later lookup found.
  if (order.inDoubtMemberId !== undefined && order.inDoubtMemberId !== customerId) {
    lines.push(
      `upstream point history of member ${order.inDoubtMemberId}, to whom the call in doubt went (entries carrying this order's markers, newest first):`,
    );
    lines.push(...(await markedEntries(openapi, order.inDoubtMemberId, source, [orderId, ...shares], reversalMarkers)));
  }
  return { found: true, lines };
}

/** The entries of a member's point history that carry the orders' markers (the order, its shares), as table lines (or `(none)`). */
async function markedEntries(
  openapi: Pick<OpenApiClient, 'listPoints'>,
  memberId: string,
  source: string,
  orderIds: readonly string[],
  reversalMarkers: ReadonlySet<string>,
): Promise<string[]> {
  const purchases = new Set(orderIds.map((id) => purchaseMarker(source, id)));
  // Their refunds, the campaign bonuses and their claw-backs: `lp1:<source>:refund:<order>:...`,
  // `lp1:<source>:bonus:<order>:...`, `lp1:<source>:bonus-back:<order>:...`.
  const prefixes = orderIds.flatMap((id) => [
    refundMarker(source, id, ''),
    bonusMarker(source, id, ''),
    bonusReturnMarker(source, id, '', '').slice(0, -1),
  ]);
  const entries: string[][] = [];
  for (let page = 1; page <= HISTORY_PAGES; page++) {
    const history = await openapi.listPoints(memberId, { page, perPage: 1000 });
    for (const p of history.points) {
      const remarks = p.remarks ?? '';
      if (purchases.has(remarks) || prefixes.some((prefix) => remarks.startsWith(prefix)) || reversalMarkers.has(remarks)) {
        entries.push([p.created_at, p.point > 0 ? `+${p.point}` : String(p.point), p.title ?? '', remarks, p.expired_at ?? '-']);
      }
    }
    if (page >= history.last_page) break;
  }
  if (entries.length === 0) return ['  (none)'];
  return renderTable(['created_at', 'point', 'title', 'remarks', 'expires'], entries, new Set([1])).map((l) => `  ${l}`);
}
