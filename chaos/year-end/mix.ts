/**
 * What a year-end sale sends, and what each receipt costs on the Open API: the calls of each kind of
 * receipt per endpoint (as the points code makes them once issue 54 item 2 is in: the member looked up
 * once per receipt, kept on the record for a retry), and the throughput bound that follows from the
 * budget. One call per endpoint per receipt is what keeps a Shopify purchase at the issue's ~33 a second.
 */
import { bulkShare } from '../../shared/config/index.js';

/** The endpoints a receipt uses (names as the client counts them: shared/openapi/endpoints.ts). */
export type Endpoint = 'getMemberByExternalId' | 'getMemberByUniqueId' | 'getMember' | 'calculatePoints' | 'grantPoints' | 'listPoints';

/** Who draws the calls from the budget: the worker (bulk) or the App Proxy (storefront, with its reserved share). */
export type Caller = 'bulk' | 'storefront';

export interface ReceiptKind {
  name: string;
  caller: Caller;
  /** The calls of one receipt, in the order they are made. */
  calls: readonly Endpoint[];
  /** Comes through API Gateway and the receiver into the queue (the App Proxy's redemption does not queue). */
  queued: boolean;
}

export const RECEIPT_KINDS = {
  // orders/paid: lookup by the shop's customer id, then the points calculation (shared/points/purchase.ts).
  shopify: { name: 'shopify', caller: 'bulk', calls: ['getMemberByExternalId', 'calculatePoints'], queued: true },
  // A till sale with a member card: lookup by the card number (find-member.ts), then the calculation.
  smaregi: { name: 'smaregi', caller: 'bulk', calls: ['getMemberByUniqueId', 'calculatePoints'], queued: true },
  // A till sale where points are spent: one lookup, the held points read, the deduction, the calculation.
  smaregi_spend: {
    name: 'smaregi_spend',
    caller: 'bulk',
    calls: ['getMemberByUniqueId', 'getMember', 'grantPoints', 'calculatePoints'],
    queued: true,
  },
  // refunds/create: lookup, then the negative grant (shared/points/refund.ts).
  refund: { name: 'refund', caller: 'bulk', calls: ['getMemberByExternalId', 'grantPoints'], queued: true },
  // A redemption at the storefront (App Proxy): lookup, then the deduction (shared/redemption/redeem.ts).
  redemption: { name: 'redemption', caller: 'storefront', calls: ['getMemberByExternalId', 'grantPoints'], queued: false },
} as const satisfies Record<string, ReceiptKind>;

export type KindName = keyof typeof RECEIPT_KINDS;

/** Shares of the receipts by kind (sum 1). */
export type Mix = Readonly<Record<KindName, number>>;

/** 50 stores × 20 tills and the web shop on a sale day: most receipts at the tills, a few refunds and redemptions. */
export const YEAR_END_MIX: Mix = { shopify: 0.35, smaregi: 0.4, smaregi_spend: 0.12, refund: 0.05, redemption: 0.08 };

export function checkMix(mix: Mix): void {
  const sum = Object.values(mix).reduce((a, b) => a + b, 0);
  if (Object.values(mix).some((share) => !(share >= 0)) || Math.abs(sum - 1) > 1e-9) {
    throw new RangeError(`a mix's shares must be 0 or more and add up to 1, got ${JSON.stringify(mix)}`);
  }
}

/** Calls per receipt on each endpoint for a mix, by caller. */
export function callsPerReceipt(mix: Mix): Map<Endpoint, { bulk: number; storefront: number }> {
  checkMix(mix);
  const out = new Map<Endpoint, { bulk: number; storefront: number }>();
  for (const [name, share] of Object.entries(mix) as [KindName, number][]) {
    const kind: ReceiptKind = RECEIPT_KINDS[name];
    for (const e of kind.calls) {
      const row = out.get(e) ?? { bulk: 0, storefront: 0 };
      row[kind.caller] += share;
      out.set(e, row);
    }
  }
  return out;
}

export interface Bound {
  /** Receipts a second the budget allows for this mix. */
  perSecond: number;
  /** The endpoint that limits it. */
  endpoint: Endpoint;
  /** Calls per receipt on that endpoint (both callers). */
  callsPerReceipt: number;
}

/**
 * The B: the whole budget divided by the calls per receipt on the busiest endpoint for the
 * mix, every caller's calls counted (the App Proxy's reserve is part of the budget, and the product
 * lends what the storefront leaves of it to the workers).
 */
export function throughputBound(perMinute: number, mix: Mix): Bound {
  return busiest(mix, (calls) => perMinute / 60 / (calls.bulk + calls.storefront));
}

/**
 * The workers' guaranteed figure, for the longer report: on each endpoint the budget less the App
 * Proxy's reserve over the workers' calls alone (what they drain at when the storefront takes its
 * whole reserve), the least over the endpoints the workers call (infinite for a mix of storefront calls only).
 */
export function workersBound(perMinute: number, mix: Mix): Bound {
  return busiest(mix, (calls) => (calls.bulk > 0 ? bulkShare(perMinute) / 60 / calls.bulk : Number.POSITIVE_INFINITY));
}

function busiest(mix: Mix, perSecondOf: (calls: { bulk: number; storefront: number }) => number): Bound {
  let best: Bound | undefined;
  for (const [endpoint, calls] of callsPerReceipt(mix)) {
    const all = calls.bulk + calls.storefront;
    if (all === 0) continue;
    const perSecond = perSecondOf(calls);
    if (!best || perSecond < best.perSecond) best = { perSecond, endpoint, callsPerReceipt: all };
  }
  if (!best) throw new RangeError('a mix with no calls has no bound');
  return best;
}
