import { scanLedger } from '../shared/audit/index.js';
import type { OrderRecord, RefundRecord } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { purchaseMarker, refundMarker } from '../shared/points/index.js';
import type { ConsoleSource } from './source.js';

/** One moment in an order's story, from the record that says it. */
export interface TimelineEntry {
  at: string;
  what: string;
  /**
   * ledger: the order's or a refund's record; activity: what intake and the worker observed (shared/activity);
   * history: the membership service's point history.
   */
  from: 'ledger' | 'activity' | 'history';
  refundId?: string;
  marker?: string;
  points?: number;
}

export interface RefundView {
  refundId: string;
  state: string;
  outcome: string | null;
  amount: string | null;
  debited: number | null;
  shortfall: number | null;
  at: string | null;
}

export interface OrderView {
  source: string;
  orderId: string;
  customer: string | null;
  customerId: string | null;
  state: string;
  outcome: string | null;
  points: number | null;
  /** Exact amounts as the ledger holds them (decimal strings, the order's currency). */
  eligible: string | null;
  refunded: string | null;
  currency: string | null;
  debited: number;
  createdAt: string | null;
  lastError: string | null;
  refunds: RefundView[];
}

export interface OrderFilter {
  source?: string;
  outcome?: string;
  customer?: string;
  /** ISO dates (or times), both inclusive. */
  from?: string;
  to?: string;
}

const orNull = <T>(v: T | undefined): T | null => v ?? null;

function refundView(order: OrderRecord | undefined, r: RefundRecord): RefundView {
  const applied = order?.refunds[r.refundId];
  return {
    refundId: r.refundId,
    state: r.state,
    outcome: orNull(r.outcome),
    amount: applied ? (applied.exactAmount ?? String(applied.amount)) : null,
    debited: orNull(r.pointsDebited),
    shortfall: orNull(r.shortfall),
    at: orNull(r.finishedAt ?? r.createdAt ?? r.firstSeenAt),
  };
}

function orderView(o: OrderRecord, refunds: RefundRecord[]): OrderView {
  return {
    source: o.source,
    orderId: o.orderId,
    customer: o.externalId === undefined ? null : `${o.externalKey ?? o.source} ${o.externalId}`,
    customerId: orNull(o.customerId),
    state: o.state,
    outcome: orNull(o.outcome),
    points: o.pointsCredited ?? o.pointsHint ?? null,
    eligible: o.eligibleExact ?? (o.eligibleAmount === undefined ? null : String(o.eligibleAmount)),
    refunded: o.refundedExact ?? (o.refundedSoFar > 0 ? String(o.refundedSoFar) : null),
    currency: orNull(o.currency),
    debited: o.debited,
    createdAt: orNull(o.createdAt ?? o.firstSeenAt),
    lastError: orNull(o.lastError ?? o.reason),
    refunds: refunds.map((r) => refundView(o, r)).sort((a, b) => (a.at ?? '').localeCompare(b.at ?? '')),
  };
}

/** A record off its schema, as a row of its own (`order#<source>#<id>`, or a refund's key): the rest of the panel still shows. */
function unreadableView(u: { pk: string; reason: string }): OrderView {
  const [, source = '', orderId = ''] = u.pk.split('#').map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  return {
    source,
    orderId,
    customer: null,
    customerId: null,
    state: 'unreadable',
    outcome: null,
    points: null,
    eligible: null,
    refunded: null,
    currency: null,
    debited: 0,
    createdAt: null,
    lastError: `unreadable record ${u.pk}: ${u.reason}`,
    refunds: [],
  };
}

function matches(v: OrderView, f: OrderFilter): boolean {
  if (f.source && v.source !== f.source) return false;
  if (f.outcome && v.outcome !== f.outcome && !v.refunds.some((r) => r.outcome === f.outcome)) return false;
  if (f.customer && !`${v.customer ?? ''} ${v.customerId ?? ''}`.includes(f.customer)) return false;
  if (f.from && (v.createdAt ?? '') < f.from) return false;
  // A date `to` includes its whole day: compare only as much of the time as the filter gives.
  if (f.to && (v.createdAt ?? '').slice(0, f.to.length) > f.to) return false;
  return true;
}

/** Every order in the ledger (refunds under their order), newest first, filtered; at most `limit`. */
export async function listOrders(source: ConsoleSource, filter: OrderFilter, limit = 200): Promise<OrderView[]> {
  const {
    orders,
    refunds,
    unreadable = [],
  } = await scanLedger(source.ledger.client, source.ledger.tableName, {}, undefined, {
    keepUnreadable: true,
  });
  const byOrder = new Map<string, RefundRecord[]>();
  for (const r of refunds) {
    const key = `${r.source}\0${r.orderId}`;
    byOrder.set(key, [...(byOrder.get(key) ?? []), r]);
  }
  return [...orders.map((o) => orderView(o, byOrder.get(`${o.source}\0${o.orderId}`) ?? [])), ...unreadable.map(unreadableView)]
    .filter((v) => matches(v, filter))
    .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''))
    .slice(0, limit);
}

/** Point-history pages (1000 entries each) searched for an order's markers, as `npm run ledger` does. */
const HISTORY_PAGES = 5;

/** The point-history entries carrying the order's markers (its credit, its refunds' debits). */
export async function markedHistory(
  openapi: Pick<OpenApiClient, 'listPoints'>,
  order: { source: string; orderId: string; customerId: string },
): Promise<TimelineEntry[]> {
  const purchase = purchaseMarker(order.source, order.orderId);
  const refundPrefix = refundMarker(order.source, order.orderId, '');
  const out: TimelineEntry[] = [];
  for (let page = 1; page <= HISTORY_PAGES; page++) {
    const history = await openapi.listPoints(order.customerId, { page, perPage: 1000 });
    for (const p of history.points) {
      const remarks = p.remarks ?? '';
      if (remarks !== purchase && !remarks.startsWith(refundPrefix)) continue;
      const what = p.point >= 0 ? 'point history: credit entry' : 'point history: debit entry';
      out.push({ at: p.created_at, what, from: 'history', marker: remarks, points: p.point });
    }
    if (page >= history.last_page) break;
  }
  return out;
}

/** The ledger's own account of an order's transitions, from the times its records keep. */
export function ledgerTimeline(o: OrderRecord, refunds: RefundRecord[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const add = (at: string | undefined, what: string, extra: Partial<TimelineEntry> = {}) => {
    if (at !== undefined) out.push({ at, what, from: 'ledger', ...extra });
  };
  add(o.createdAt ?? o.firstSeenAt, `ledger: purchase claimed (attempts so far ${o.attempts})`);
  add(o.finishedAt, `ledger: order ${o.outcome ?? o.state}`, {
    marker: purchaseMarker(o.source, o.orderId),
    ...(o.pointsCredited === undefined ? {} : { points: o.pointsCredited }),
  });
  if (o.lastError) add(o.updatedAt, `ledger: last error ${o.lastError}`);
  for (const r of refunds) {
    add(r.firstSeenAt ?? r.createdAt, `ledger: refund ${r.refundId} claimed`, { refundId: r.refundId });
    add(r.finishedAt, `ledger: refund ${r.refundId} ${r.outcome ?? r.state}`, {
      refundId: r.refundId,
      marker: refundMarker(r.source, r.orderId, r.refundId),
      ...(r.pointsDebited === undefined ? {} : { points: -r.pointsDebited }),
    });
    if (r.lastError) add(r.updatedAt, `ledger: refund ${r.refundId} last error ${r.lastError}`, { refundId: r.refundId });
  }
  return out;
}
