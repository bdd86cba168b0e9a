import { scanLedger } from '../shared/audit/index.js';
import type { BonusRecord, OrderRecord, RefundRecord } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { parseMarker, purchaseMarker, refundMarker } from '../shared/points/index.js';
import { jstDay } from '../shared/time/index.js';
import { type ConsoleMessage, message } from './messages.js';
import type { ConsoleSource } from './source.js';

/** One moment in an order's story, from the record that says it. */
export interface TimelineEntry {
  at: string;
  /** What happened, worded by the page in the reader's language. */
  what: ConsoleMessage;
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
  /** Japan days (`2026-12-01`, the page's date inputs) or ISO times, both inclusive. */
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
  return withinDates(v.createdAt, f);
}

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The operator picks days on a Japan calendar: a date end compares the Japan day the order was created on
 * (a `to` day includes its whole day), a time end compares instants.
 */
export function withinDates(createdAt: string | null, f: Pick<OrderFilter, 'from' | 'to'>): boolean {
  if (!f.from && !f.to) return true;
  if (createdAt === null || Number.isNaN(Date.parse(createdAt))) return false;
  const day = jstDay(createdAt);
  const at = Date.parse(createdAt);
  const after = (end: string) => (DAY_ONLY.test(end) ? day >= end : at >= Date.parse(end));
  const before = (end: string) => (DAY_ONLY.test(end) ? day <= end : at <= Date.parse(end));
  return (!f.from || after(f.from)) && (!f.to || before(f.to));
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
  // Its shipped shares (issue 53): each credited as the order `<order>/ship-<amount>` and taken back (`superseded`).
  const sharePrefixes = [purchaseMarker(order.source, `${order.orderId}/ship-`), refundPrefix.replace(/:$/, '%2Fship-')];
  const out: TimelineEntry[] = [];
  for (let page = 1; page <= HISTORY_PAGES; page++) {
    const history = await openapi.listPoints(order.customerId, { page, perPage: 1000 });
    for (const p of history.points) {
      const remarks = p.remarks ?? '';
      const parsed = parseMarker(remarks);
      // A campaign's bonus and its claw-backs (issue 53) are the order's too.
      const bonus =
        (parsed?.kind === 'bonus' || parsed?.kind === 'bonus_return') && parsed.orderId === order.orderId && parsed.source === order.source;
      const share = sharePrefixes.some((prefix) => remarks.startsWith(prefix));
      if (remarks !== purchase && !remarks.startsWith(refundPrefix) && !bonus && !share) continue;
      const campaign = { campaign: bonus ? parsed.campaignId : '' };
      const amount = share ? (/%2Fship-([0-9]+)/i.exec(remarks)?.[1] ?? '') : '';
      const what = share
        ? message(p.point >= 0 ? 'timeline.historyShare' : 'timeline.historyShareBack', { amount })
        : !bonus
          ? message(p.point >= 0 ? 'timeline.historyCredit' : 'timeline.historyDebit')
          : parsed.kind === 'bonus_return'
            ? message('timeline.historyBonusBack', campaign)
            : message('timeline.historyBonus', campaign);
      out.push({ at: p.created_at, what, from: 'history', marker: remarks, points: p.point });
    }
    if (page >= history.last_page) break;
  }
  return out;
}

/** The ledger's own account of an order's transitions, from the times its records keep. */
export function ledgerTimeline(o: OrderRecord, refunds: RefundRecord[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const add = (at: string | undefined, what: ConsoleMessage, extra: Partial<TimelineEntry> = {}) => {
    if (at !== undefined) out.push({ at, what, from: 'ledger', ...extra });
  };
  add(o.createdAt ?? o.firstSeenAt, message('timeline.purchaseClaimed', { attempts: o.attempts }));
  add(o.finishedAt, message('timeline.orderFinished', { outcome: o.outcome ?? o.state }), {
    marker: purchaseMarker(o.source, o.orderId),
    ...(o.pointsCredited === undefined ? {} : { points: o.pointsCredited }),
  });
  if (o.lastError) add(o.updatedAt, message('timeline.orderLastError', { error: o.lastError }));
  for (const r of refunds) {
    add(r.firstSeenAt ?? r.createdAt, message('timeline.refundClaimed', { refund: r.refundId }), { refundId: r.refundId });
    add(r.finishedAt, message('timeline.refundFinished', { refund: r.refundId, outcome: r.outcome ?? r.state }), {
      refundId: r.refundId,
      marker: refundMarker(r.source, r.orderId, r.refundId),
      ...(r.pointsDebited === undefined ? {} : { points: -r.pointsDebited }),
    });
    if (r.lastError)
      add(r.updatedAt, message('timeline.refundLastError', { refund: r.refundId, error: r.lastError }), { refundId: r.refundId });
  }
  return out;
}

/**
 * A shipped share of the order (issue 53, shared/points/shares.ts) as its records tell it: the share's credit
 * (its own order `<order>/ship-<amount>`), then its take-back (the share's `superseded` refund).
 */
export function shareTimeline(amount: string, share: OrderRecord, back: RefundRecord | undefined): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const refundId = `ship-${amount}`;
  if (share.finishedAt !== undefined) {
    out.push({
      at: share.finishedAt,
      what: message('timeline.shareCredited', { amount, outcome: share.outcome ?? share.state }),
      from: 'ledger',
      refundId,
      marker: purchaseMarker(share.source, share.orderId),
      ...(share.pointsCredited === undefined ? {} : { points: share.pointsCredited }),
    });
  }
  if (back?.finishedAt !== undefined) {
    out.push({
      at: back.finishedAt,
      what: message('timeline.shareTakenBack', { amount, outcome: back.outcome ?? back.state }),
      from: 'ledger',
      refundId,
      marker: refundMarker(back.source, back.orderId, back.refundId),
      ...(back.pointsDebited === undefined ? {} : { points: -back.pointsDebited }),
    });
  }
  return out;
}

/** A campaign's bonus as its record tells it: the grant, then each refund's claw-back. */
export function bonusTimeline(b: BonusRecord): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  if (b.state === 'done' && b.finishedAt !== undefined) {
    const points = b.points ?? 0;
    out.push({
      at: b.finishedAt,
      what: message('timeline.bonusGranted', { campaign: b.campaignId, points }),
      from: 'ledger',
      marker: b.marker,
      points,
    });
  }
  for (const [refundId, c] of Object.entries(b.clawbacks)) {
    const what = message('timeline.bonusTakenBack', { campaign: b.campaignId, refund: refundId, points: c.taken });
    out.push({ at: c.at, what, from: 'ledger', refundId, points: -c.taken });
  }
  return out;
}
