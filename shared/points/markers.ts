/**
 * Markers put in `remarks` of the points calls: unique per order and per refund, so the point history
 * proves whether an operation ran. The version prefix keeps room for a future format.
 */
const part = encodeURIComponent;

export const purchaseMarker = (source: string, orderId: string) => `lp1:${part(source)}:order:${part(orderId)}`;

export const refundMarker = (source: string, orderId: string, refundId: string) =>
  `lp1:${part(source)}:refund:${part(orderId)}:${part(refundId)}`;

/** A redemption's deduction: one per shop customer and per request (the page's click). */
export const redemptionMarker = (source: string, customerId: string, requestId: string) =>
  `lp1:${part(source)}:redeem:${part(customerId)}:${part(requestId)}`;

/** The same redemption's points given back (code never made, unused at its end, order refunded). */
export const redemptionReturnMarker = (source: string, customerId: string, requestId: string) =>
  `lp1:${part(source)}:redeem-return:${part(customerId)}:${part(requestId)}`;

/**
 * The same redemption's points taken again: an order of the code's customer came after they were given
 * back (a code used around its end). Once per redemption.
 */
export const redemptionClawbackMarker = (source: string, customerId: string, requestId: string) =>
  `lp1:${part(source)}:redeem-clawback:${part(customerId)}:${part(requestId)}`;

/**
 * The audit's reversal of one extra history entry (a marker found more than once: a request that landed
 * after every horizon). Keyed by the extra entry's history id, unique within the member's history, so
 * each extra entry is reversed at most once and the audit knows its own reversals when it reads them.
 */
export const reversalMarker = (source: string, entryId: string) => `lp1:${part(source)}:reversal:${part(entryId)}`;

/** A campaign's bonus on an order (issue 53): one per order and campaign, after the order's own credit. */
export const bonusMarker = (source: string, orderId: string, campaignId: string) =>
  `lp1:${part(source)}:bonus:${part(orderId)}:${part(campaignId)}`;

/** A refund's share of that bonus taken back: one per order, campaign and refund. */
export const bonusReturnMarker = (source: string, orderId: string, campaignId: string, refundId: string) =>
  `lp1:${part(source)}:bonus-back:${part(orderId)}:${part(campaignId)}:${part(refundId)}`;

/** A marker of ours, read back from `remarks`. */
export type ParsedMarker =
  | { kind: 'order'; source: string; orderId: string }
  | { kind: 'refund'; source: string; orderId: string; refundId: string }
  | { kind: 'redemption'; source: string; customerId: string; requestId: string }
  | { kind: 'redemption_return'; source: string; customerId: string; requestId: string }
  | { kind: 'redemption_clawback'; source: string; customerId: string; requestId: string }
  | { kind: 'reversal'; source: string; entryId: string }
  | { kind: 'bonus'; source: string; orderId: string; campaignId: string }
  | { kind: 'bonus_return'; source: string; orderId: string; campaignId: string; refundId: string };

/** The marker's operation, or undefined when `remarks` is not a well-formed marker of ours (lp1). */
export function parseMarker(remarks: string | null | undefined): ParsedMarker | undefined {
  if (!remarks?.startsWith('lp1:')) return undefined;
  const parts = remarks.split(':');
  try {
    const d = (s: string | undefined) => (s === undefined || s === '' ? undefined : decodeURIComponent(s));
    const [, source, kind, orderId, refundId, fifth] = parts.map((p, i) => (i === 0 ? p : d(p)));
    if (source === undefined || orderId === undefined) return undefined;
    if (kind === 'order' && parts.length === 4) return { kind: 'order', source, orderId };
    if (kind === 'reversal' && parts.length === 4) return { kind: 'reversal', source, entryId: orderId };
    if (kind === 'bonus' && parts.length === 5 && refundId !== undefined) return { kind: 'bonus', source, orderId, campaignId: refundId };
    if (kind === 'bonus-back' && parts.length === 6 && refundId !== undefined && fifth !== undefined) {
      return { kind: 'bonus_return', source, orderId, campaignId: refundId, refundId: fifth };
    }
    if (kind === 'refund' && parts.length === 5 && refundId !== undefined) return { kind: 'refund', source, orderId, refundId };
    if ((kind === 'redeem' || kind === 'redeem-return' || kind === 'redeem-clawback') && parts.length === 5 && refundId !== undefined) {
      // Same positions: the customer and the request id.
      const ids = { source, customerId: orderId, requestId: refundId };
      if (kind === 'redeem') return { kind: 'redemption', ...ids };
      return kind === 'redeem-return' ? { kind: 'redemption_return', ...ids } : { kind: 'redemption_clawback', ...ids };
    }
  } catch {
    // A malformed escape: not one of ours.
  }
  return undefined;
}

/** Whether `remarks` looks like one of our markers (our prefix), well-formed or not. */
export const isOurMarkerPrefix = (remarks: string | null | undefined): boolean => remarks?.startsWith('lp1:') ?? false;
