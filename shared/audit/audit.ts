import { type Ledger, orderKey, type OrderRecord, refundKey, type RefundRecord } from '../ledger/index.js';
import { isOpenApiError, type OpenApiClient, type PointItem } from '../openapi/index.js';
import { isOurMarkerPrefix, parseMarker, purchaseMarker, refundMarker } from '../points/index.js';
import type { AuditResult, EntryView, Finding, Note } from './findings.js';
import type { LedgerRecords } from './scan.js';

/** The value under `key`, put there first by `make` when there is none. */
function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

const PER_PAGE = 1000; // the spec's maximum: fewest requests per history

export interface AuditProgress {
  customersDone: number;
  customers: number;
  historyPages: number;
}

export interface AuditDeps {
  /** Looks up records that history entries refer to but the scan did not return (outside the range). */
  ledger: Pick<Ledger, 'getOrder' | 'getRefund'>;
  /** The Open API client: its per-endpoint limiter keeps the history reads within the rate budget. */
  openapi: Pick<OpenApiClient, 'listPoints'>;
  onProgress?: (p: AuditProgress) => void;
}

const view = (p: PointItem): EntryView => ({ id: p.id, point: p.point, createdAt: p.created_at });
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const listed = (entries: PointItem[]) => entries.map((e) => `${signed(e.point)} (entry ${e.id})`).join(', ');

/**
 * Every entry of a customer's point history, all pages. Newest first: an entry added while the pages
 * are read pushes older ones onto the next page, where they would be read twice (and look doubled),
 * so entries are kept once by id.
 */
async function readHistory(api: AuditDeps['openapi'], customerId: string, onPage: () => void): Promise<PointItem[]> {
  const byId = new Map<string, PointItem>();
  for (let page = 1; ; page++) {
    const result = await api.listPoints(customerId, { page, perPage: PER_PAGE });
    onPage();
    for (const p of result.points) if (!byId.has(p.id)) byId.set(p.id, p);
    if (page >= result.last_page || result.points.length === 0) return [...byId.values()];
  }
}

/**
 * Reconciles ledger records with the membership service's point histories: each credited order has
 * exactly one entry with its marker, of the recorded size; each refund at most one debit entry with its
 * marker, of the recorded size (none when it debited nothing); and no entry carries a marker of ours
 * that the ledger does not know, or knows as not having moved points. Operations still in flight
 * (a lease or a call of unknown outcome) are notes, not drift, unless the history already shows
 * more than one entry for them (never right).
 */
export async function auditLedger(records: LedgerRecords, deps: AuditDeps): Promise<AuditResult> {
  const orders = new Map<string, OrderRecord>(records.orders.map((o) => [orderKey(o.source, o.orderId), o]));
  const refunds = new Map<string, RefundRecord>(records.refunds.map((r) => [refundKey(r.source, r.orderId, r.refundId), r]));
  const findings: Finding[] = [];
  const notes: Note[] = [];
  let historyPages = 0;
  /** An operation still under way whose entry is already in the history: a note, not drift (it will be booked). */
  const noteInFlight = (entries: PointItem[], where: Omit<Note, 'kind' | 'detail'>, what: string) => {
    if (entries.length > 0)
      notes.push({ kind: 'in_flight', ...where, detail: `${what} is in the history and will be booked when it is found` });
  };

  // Orders of refunds outside the range are read once, when a refund needs its order's book.
  const orderCache = new Map<string, Promise<OrderRecord | undefined>>();
  const orderOf = (source: string, orderId: string) => {
    const key = orderKey(source, orderId);
    const known = orders.get(key);
    if (known) return Promise.resolve(known);
    const cached = orderCache.get(key);
    if (cached) return cached;
    const p = deps.ledger.getOrder({ source, orderId });
    orderCache.set(key, p);
    return p;
  };

  // customer -> the records whose points moved (or may have) on that customer
  const byCustomer = new Map<string, { orders: OrderRecord[]; refunds: RefundRecord[] }>();
  const slot = (c: string) => entryOf(byCustomer, c, () => ({ orders: [], refunds: [] }));
  for (const o of orders.values()) {
    if (o.customerId !== undefined) slot(o.customerId).orders.push(o);
    else if (o.outcome === 'credited') {
      findings.push({
        kind: 'no_customer',
        source: o.source,
        orderId: o.orderId,
        marker: purchaseMarker(o.source, o.orderId),
        entries: [],
        detail: 'the ledger says credited but names no customer, so no history shows the credit',
      });
    }
  }
  for (const r of refunds.values()) {
    const customerId = r.customerId ?? (await orderOf(r.source, r.orderId))?.customerId;
    if (customerId !== undefined) slot(customerId).refunds.push(r);
    else if ((r.pointsDebited ?? 0) > 0) {
      findings.push({
        kind: 'no_customer',
        source: r.source,
        orderId: r.orderId,
        refundId: r.refundId,
        marker: refundMarker(r.source, r.orderId, r.refundId),
        entries: [],
        detail: `the ledger says ${r.pointsDebited} points debited but names no customer`,
      });
    }
  }
  let auditedOrders = orders.size;
  let auditedRefunds = refunds.size;

  const checkOrder = (o: OrderRecord, customerId: string, entries: PointItem[]) => {
    const marker = purchaseMarker(o.source, o.orderId);
    const base = { source: o.source, orderId: o.orderId, customerId, marker, entries: entries.map(view) };
    const inFlight = o.state === 'pending' || o.needsReconcile === true;
    if (entries.length > 1) {
      findings.push({
        ...base,
        kind: 'duplicate_credit',
        detail: `${entries.length} history entries carry the order's marker (${listed(entries)}); the ledger records one credit`,
      });
      return;
    }
    if (o.state === 'done' && o.outcome === 'credited') {
      const size = o.pointsCredited ?? o.pointsHint;
      const [first] = entries;
      if (first === undefined) {
        findings.push({
          ...base,
          kind: 'missing_credit',
          detail: `the ledger records a credit of ${size ?? '?'} points; no history entry carries the order's marker`,
        });
      } else if (o.pointsCredited !== undefined && first.point !== o.pointsCredited) {
        findings.push({
          ...base,
          kind: 'credit_size',
          detail: `the history entry credits ${signed(first.point)}; the ledger records ${o.pointsCredited}`,
        });
      } else if (o.pointsCredited === undefined && o.pointsHint !== undefined && first.point !== o.pointsHint) {
        // Only the balance difference around the grant was recorded: other moves in between change it.
        // The entry is the exact credit (refunds read it from there), so this is not drift.
        notes.push({
          kind: 'hint_differs',
          source: o.source,
          orderId: o.orderId,
          customerId,
          detail: `the history entry credits ${signed(first.point)}; the balance moved by ${signed(o.pointsHint)} around the grant (other moves in between)`,
        });
      }
      return;
    }
    if (inFlight) {
      noteInFlight(
        entries,
        { source: o.source, orderId: o.orderId, customerId },
        `the purchase is still in progress (state ${o.state}); its credit`,
      );
      return;
    }
    if (entries.length > 0) {
      findings.push({
        ...base,
        kind: 'credit_not_recorded',
        detail: `the history credits ${listed(entries)}; the ledger says ${o.state}${o.outcome ? ` (${o.outcome})` : ''}, no credit`,
      });
    }
  };

  const checkRefund = async (r: RefundRecord, customerId: string, entries: PointItem[]) => {
    const marker = refundMarker(r.source, r.orderId, r.refundId);
    const base = { source: r.source, orderId: r.orderId, refundId: r.refundId, customerId, marker, entries: entries.map(view) };
    if (entries.length > 1) {
      findings.push({
        ...base,
        kind: 'duplicate_debit',
        detail: `${entries.length} history entries carry the refund's marker (${listed(entries)}); at most one debit is allowed`,
      });
      return;
    }
    const order = await orderOf(r.source, r.orderId);
    const applied = order?.refunds[r.refundId];
    // Booked on the order (applyRefund) before the refund record was finished: the order's book counts.
    const recorded = r.state === 'done' ? (r.pointsDebited ?? 0) : applied?.debited;
    const inDoubt = order?.refundsInDoubt.includes(r.refundId) === true;
    if (recorded === undefined || (inDoubt && r.state !== 'done')) {
      if (r.state === 'pending' || inDoubt) {
        noteInFlight(
          entries,
          { source: r.source, orderId: r.orderId, refundId: r.refundId, customerId },
          `the refund is still in progress (state ${r.state}); its debit`,
        );
        return;
      }
      if (entries.length > 0) {
        findings.push({
          ...base,
          kind: 'debit_not_recorded',
          detail: `the history debits ${listed(entries)}; the ledger says ${r.state}${r.outcome ? ` (${r.outcome})` : ''}, no debit`,
        });
      }
      return;
    }
    if (recorded === 0) {
      if (entries.length > 0)
        findings.push({
          ...base,
          kind: 'debit_not_recorded',
          detail: `the history debits ${listed(entries)}; the ledger records no debit (${r.outcome ?? r.state})`,
        });
      return;
    }
    const [first] = entries;
    if (first === undefined) {
      findings.push({
        ...base,
        kind: 'missing_debit',
        detail: `the ledger records a debit of ${recorded} points; no history entry carries the refund's marker`,
      });
    } else if (first.point !== -recorded) {
      findings.push({
        ...base,
        kind: 'debit_size',
        detail: `the history entry debits ${signed(first.point)}; the ledger records -${recorded}`,
      });
    }
  };

  const customers = [...byCustomer.keys()];
  let done = 0;
  for (const [customerId, mine] of byCustomer) {
    let history: PointItem[];
    try {
      history = await readHistory(deps.openapi, customerId, () => historyPages++);
    } catch (e) {
      // A withdrawn customer's history cannot be read (the service answers not found): say so.
      if (!isOpenApiError(e) || e.kind !== 'member_not_found') throw e;
      notes.push({
        kind: 'history_unreadable',
        customerId,
        detail: `the membership service does not find the customer (withdrawn?): ${mine.orders.length} order(s) and ${mine.refunds.length} refund(s) not checked`,
      });
      deps.onProgress?.({ customersDone: ++done, customers: customers.length, historyPages });
      continue;
    }
    const byMarker = new Map<string, PointItem[]>();
    for (const entry of history) {
      const marker = entry.remarks;
      if (marker == null || !isOurMarkerPrefix(marker)) continue;
      entryOf(byMarker, marker, () => []).push(entry);
    }
    const checked = new Set<string>();
    for (const o of mine.orders) {
      const marker = purchaseMarker(o.source, o.orderId);
      checked.add(marker);
      checkOrder(o, customerId, byMarker.get(marker) ?? []);
    }
    for (const r of mine.refunds) {
      const marker = refundMarker(r.source, r.orderId, r.refundId);
      checked.add(marker);
      await checkRefund(r, customerId, byMarker.get(marker) ?? []);
    }
    // Entries carrying a marker of ours that no record in range accounts for.
    for (const [marker, entries] of byMarker) {
      if (checked.has(marker)) continue;
      const parsed = parseMarker(marker);
      const base = { customerId, marker, entries: entries.map(view) };
      if (parsed === undefined) {
        findings.push({
          ...base,
          kind: 'foreign_marker',
          source: '-',
          orderId: '-',
          detail: `history entries ${listed(entries)} carry "${marker}", which is not a marker this bridge writes`,
        });
        continue;
      }
      const ref = { source: parsed.source, orderId: parsed.orderId };
      if (parsed.kind === 'order') {
        const o = await orderOf(parsed.source, parsed.orderId);
        if (o === undefined) {
          findings.push({
            ...base,
            ...ref,
            kind: 'foreign_marker',
            detail: `history entries ${listed(entries)} carry the marker of an order the ledger does not know`,
          });
        } else if (o.customerId !== undefined && o.customerId !== customerId) {
          findings.push({
            ...base,
            ...ref,
            kind: 'wrong_customer',
            detail: `history entries ${listed(entries)} carry the order's marker; the ledger credits customer ${o.customerId}`,
          });
        } else {
          auditedOrders++;
          checkOrder(o, customerId, entries);
        }
      } else {
        const r = await deps.ledger.getRefund({ ...ref, refundId: parsed.refundId });
        if (r === undefined) {
          findings.push({
            ...base,
            ...ref,
            refundId: parsed.refundId,
            kind: 'foreign_marker',
            detail: `history entries ${listed(entries)} carry the marker of a refund the ledger does not know`,
          });
        } else if (r.customerId !== undefined && r.customerId !== customerId) {
          findings.push({
            ...base,
            ...ref,
            refundId: parsed.refundId,
            kind: 'wrong_customer',
            detail: `history entries ${listed(entries)} carry the refund's marker; the ledger debits customer ${r.customerId}`,
          });
        } else {
          auditedRefunds++;
          await checkRefund(r, customerId, entries);
        }
      }
    }
    deps.onProgress?.({ customersDone: ++done, customers: customers.length, historyPages });
  }
  return { orders: auditedOrders, refunds: auditedRefunds, customers: customers.length, historyPages, findings, notes };
}
