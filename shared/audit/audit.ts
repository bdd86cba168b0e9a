import { type Ledger, orderKey, type OrderRecord, refundKey, type RefundRecord } from '../ledger/index.js';
import { isOpenApiError, type OpenApiClient, type PointItem } from '../openapi/index.js';
import { isOurMarkerPrefix, parseMarker, purchaseMarker, refundMarker } from '../points/index.js';
import { checkOrder, checkRefund, joined, listed, type Report, report, signed, view } from './checks.js';
import { healDuplicates } from './duplicates.js';
import type { AuditResult, Finding, Note } from './findings.js';
import type { ReversalDeps } from './reversal.js';
import { settleShortfalls } from './shortfalls.js';
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
  ledger: Pick<Ledger, 'getOrder' | 'getRefund' | 'getBonus' | 'correctBookedDebit' | 'correctRefundDebit' | 'settleRefundShortfall'>;
  /** The Open API client: its per-endpoint limiter keeps the history reads within the rate budget. */
  openapi: Pick<OpenApiClient, 'listPoints'>;
  /** What reverses each extra entry of a duplicated marker (the reversal records, the engine, the policy). */
  reversal: ReversalDeps;
  onProgress?: (p: AuditProgress) => void;
}

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

type OrderLookup = (source: string, orderId: string) => Promise<OrderRecord | undefined>;

/** The records in range, by key, and how to find an order outside it (read once, when a refund needs its book). */
interface InRange {
  orders: Map<string, OrderRecord>;
  refunds: Map<string, RefundRecord>;
  /** Members whose histories are read though no order or refund in range names them (their redemptions'). */
  members: string[];
  orderOf: OrderLookup;
}

function inRange(records: LedgerRecords, ledger: AuditDeps['ledger']): InRange {
  const orders = new Map<string, OrderRecord>(records.orders.map((o) => [orderKey(o.source, o.orderId), o]));
  const refunds = new Map<string, RefundRecord>(records.refunds.map((r) => [refundKey(r.source, r.orderId, r.refundId), r]));
  const outside = new Map<string, Promise<OrderRecord | undefined>>();
  const orderOf: OrderLookup = (source, orderId) => {
    const key = orderKey(source, orderId);
    const known = orders.get(key);
    if (known) return Promise.resolve(known);
    return entryOf(outside, key, () => ledger.getOrder({ source, orderId }));
  };
  return { orders, refunds, members: records.members ?? [], orderOf };
}

/** The records whose points moved (or may have) on one customer. */
interface Mine {
  orders: OrderRecord[];
  refunds: RefundRecord[];
}

/** The records by the customer their points moved on; those that moved points on no named customer are drift. */
async function byCustomer({ orders, refunds, members, orderOf }: InRange): Promise<{ customers: Map<string, Mine>; findings: Finding[] }> {
  const customers = new Map<string, Mine>();
  const findings: Finding[] = [];
  const slot = (c: string) => entryOf(customers, c, () => ({ orders: [], refunds: [] }));
  // A redemption's member: its history is read for duplicates (a deduction applied twice) like the others.
  for (const m of members) slot(m);
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
  return { customers, findings };
}

/** The history's entries that carry a marker of ours, by marker. */
function byMarker(history: PointItem[]): Map<string, PointItem[]> {
  const entries = new Map<string, PointItem[]>();
  for (const entry of history) {
    const marker = entry.remarks;
    if (marker == null || !isOurMarkerPrefix(marker)) continue;
    entryOf(entries, marker, () => []).push(entry);
  }
  return entries;
}

/** What one customer's audit adds up: its report, the records it audited beyond those in range, pages read. */
interface CustomerAudit extends Report {
  duplicates: number;
  reversed: number;
  extraOrders: number;
  extraRefunds: number;
  historyPages: number;
}

/**
 * Entries carrying a marker of ours that no record in range accounts for: a marker we never write, a
 * record the ledger does not know or credits to another customer, or one outside the range (checked).
 */
async function strayEntries(
  marker: string,
  entries: PointItem[],
  customerId: string,
  deps: AuditDeps,
  orderOf: OrderLookup,
): Promise<{ found: Report; order?: true; refund?: true }> {
  const parsed = parseMarker(marker);
  const base = { customerId, marker, entries: entries.map(view) };
  if (parsed === undefined) {
    const detail = `history entries ${listed(entries)} carry "${marker}", which is not a marker this bridge writes`;
    return { found: report([{ ...base, kind: 'foreign_marker', source: '-', orderId: '-', detail }]) };
  }
  // Redemptions are checked against their own records (npm run redemptions -- list), not here.
  if (parsed.kind === 'redemption' || parsed.kind === 'redemption_return' || parsed.kind === 'redemption_clawback')
    return { found: report([]) };
  if (parsed.kind === 'reversal') return { found: await checkReversal(parsed, entries, customerId, deps) };
  if (parsed.kind === 'bonus' || parsed.kind === 'bonus_return') return { found: await checkBonus(parsed, entries, customerId, deps) };
  const ref = { source: parsed.source, orderId: parsed.orderId };
  if (parsed.kind === 'order') {
    const o = await orderOf(parsed.source, parsed.orderId);
    if (o === undefined) {
      const detail = `history entries ${listed(entries)} carry the marker of an order the ledger does not know`;
      return { found: report([{ ...base, ...ref, kind: 'foreign_marker', detail }]) };
    }
    if (o.customerId !== undefined && o.customerId !== customerId) {
      const detail = `history entries ${listed(entries)} carry the order's marker; the ledger credits customer ${o.customerId}`;
      return { found: report([{ ...base, ...ref, kind: 'wrong_customer', detail }]) };
    }
    return { found: checkOrder(o, customerId, entries), order: true };
  }
  const r = await deps.ledger.getRefund({ ...ref, refundId: parsed.refundId });
  if (r === undefined) {
    const detail = `history entries ${listed(entries)} carry the marker of a refund the ledger does not know`;
    return { found: report([{ ...base, ...ref, refundId: parsed.refundId, kind: 'foreign_marker', detail }]) };
  }
  if (r.customerId !== undefined && r.customerId !== customerId) {
    const detail = `history entries ${listed(entries)} carry the refund's marker; the ledger debits customer ${r.customerId}`;
    return { found: report([{ ...base, ...ref, refundId: parsed.refundId, kind: 'wrong_customer', detail }]) };
  }
  return { found: await checkRefund(r, customerId, entries, orderOf), refund: true };
}

/**
 * A campaign bonus or a refund's claw-back of it (issue 53): against its bonus record. The entries must
 * add up to what the record booked (the bonus granted, the claw-back taken); booked not yet: in flight.
 */
async function checkBonus(
  parsed: { kind: 'bonus' | 'bonus_return'; source: string; orderId: string; campaignId: string; refundId?: string },
  entries: PointItem[],
  customerId: string,
  deps: AuditDeps,
): Promise<Report> {
  const record = await deps.ledger.getBonus({ source: parsed.source, orderId: parsed.orderId, campaignId: parsed.campaignId });
  const refund = parsed.kind === 'bonus_return' ? { refundId: parsed.refundId } : {};
  const where = { source: parsed.source, orderId: parsed.orderId, customerId, ...refund };
  const base = { ...where, marker: entries[0]?.remarks ?? '', entries: entries.map(view) };
  if (record === undefined) {
    const detail = `history entries ${listed(entries)} carry the marker of a campaign bonus the ledger does not know`;
    return report([{ ...base, kind: 'foreign_marker', detail }]);
  }
  if (record.memberId !== undefined && record.memberId !== customerId) {
    const detail = `history entries ${listed(entries)} carry the bonus's marker; the ledger grants it to customer ${record.memberId}`;
    return report([{ ...base, kind: 'wrong_customer', detail }]);
  }
  const booked =
    parsed.kind === 'bonus'
      ? record.state === 'done'
        ? record.points
        : undefined
      : record.clawbacks[parsed.refundId ?? '']?.taken !== undefined
        ? -(record.clawbacks[parsed.refundId ?? '']?.taken ?? 0)
        : undefined;
  const what =
    parsed.kind === 'bonus'
      ? `campaign ${parsed.campaignId}'s bonus`
      : `campaign ${parsed.campaignId}'s bonus taken back for refund ${parsed.refundId}`;
  if (booked === undefined)
    return report([], [{ kind: 'in_flight', ...where, detail: `the ${what} is in the history and not recorded yet` }]);
  const total = entries.reduce((sum, e) => sum + e.point, 0);
  if (total === booked) return report();
  const detail = `the ${what}: the history shows ${signed(total)} (${listed(entries)}), the ledger ${signed(booked)}`;
  return report([{ ...base, kind: parsed.kind === 'bonus' ? 'credit_size' : 'debit_size', detail }]);
}

/** The audit's own reversal entry: recognised by its record (in flight while the record is pending). */
async function checkReversal(
  parsed: { source: string; entryId: string },
  entries: PointItem[],
  customerId: string,
  deps: AuditDeps,
): Promise<Report> {
  const record = await deps.reversal.reversals.get(parsed.source, customerId, parsed.entryId);
  const where = { source: parsed.source, orderId: record?.orderId ?? '-', customerId };
  if (record === undefined) {
    const detail = `history entries ${listed(entries)} carry the marker of a reversal the ledger does not know`;
    return report([{ ...where, marker: entries[0]?.remarks ?? '', entries: entries.map(view), kind: 'foreign_marker', detail }]);
  }
  if (record.state === 'done') return report();
  return report(
    [],
    [
      {
        kind: 'in_flight',
        ...where,
        detail: `the reversal of entry ${parsed.entryId} is in the history and will be recorded by the next audit`,
      },
    ],
  );
}

/**
 * The size of each marker's entry that should stand (a credit positive, a debit negative): an order's
 * credit as booked; a refund's target (its share of the credit), else its debit as booked.
 */
function wantedSizes(mine: Mine): Map<string, number> {
  const wanted = new Map<string, number>();
  for (const o of mine.orders) {
    const points = o.pointsExact ? o.pointsCredited : o.pointsHint;
    if (points !== undefined) wanted.set(purchaseMarker(o.source, o.orderId), points);
  }
  for (const r of mine.refunds) {
    const size = r.debitTarget ?? r.pointsDebited;
    if (size !== undefined) wanted.set(refundMarker(r.source, r.orderId, r.refundId), -size);
  }
  return wanted;
}

/**
 * A done refund whose marker was found twice, where the entry that stands (its target) is not the one its
 * record booked: the record (debited, shortfall, outcome) and the order's book follow the entry that stands,
 * so the ledger says what the member was debited. `mine` gets the corrected records; each correction is a note.
 */
async function correctRefunds(mine: Mine, standing: ReadonlyMap<string, PointItem>, deps: AuditDeps): Promise<Note[]> {
  const notes: Note[] = [];
  for (const [i, r] of mine.refunds.entries()) {
    const entry = standing.get(refundMarker(r.source, r.orderId, r.refundId));
    if (!entry || r.state !== 'done' || r.pointsDebited === undefined || r.debitTarget === undefined) continue;
    const to = -entry.point;
    if (to === r.pointsDebited) continue;
    const fix = { from: r.pointsDebited, to, target: r.debitTarget };
    // The order's book first: a run that dies between the two finds the record still to correct.
    await deps.ledger.correctBookedDebit(r, fix);
    const corrected = await deps.ledger.correctRefundDebit(r, fix);
    if (!corrected) continue;
    mine.refunds[i] = corrected;
    const detail = `the refund's record and its order's book corrected to the entry that stands (${entry.id}): debited ${to} (was ${fix.from}), target ${fix.target}`;
    notes.push({
      kind: 'debit_corrected',
      source: r.source,
      orderId: r.orderId,
      refundId: r.refundId,
      customerId: r.customerId ?? '',
      detail,
    });
  }
  return notes;
}

/** One customer's records against its point history: each record's entries, then the entries no record accounts for. */
async function auditCustomer(customerId: string, mine: Mine, deps: AuditDeps, orderOf: OrderLookup): Promise<CustomerAudit> {
  let historyPages = 0;
  let history: PointItem[];
  try {
    history = await readHistory(deps.openapi, customerId, () => historyPages++);
  } catch (e) {
    // A withdrawn customer's history cannot be read (the service answers not found): say so.
    if (!isOpenApiError(e) || e.kind !== 'member_not_found') throw e;
    const detail = `the membership service does not find the customer (withdrawn?): ${mine.orders.length} order(s) and ${mine.refunds.length} refund(s) not checked`;
    const unread = report([], [{ kind: 'history_unreadable', customerId, detail }]);
    return { ...unread, duplicates: 0, reversed: 0, extraOrders: 0, extraRefunds: 0, historyPages };
  }
  const entries = byMarker(history);
  // First each extra entry of a duplicated marker is reversed; the checks then see the standing entry.
  const healed = await healDuplicates(customerId, entries, deps.reversal, wantedSizes(mine));
  const corrected = await correctRefunds(mine, healed.standing, deps);
  // An extra debit given back also settles the clamps it caused (shortfalls.ts).
  const settled = await settleShortfalls(customerId, history, healed, mine.refunds, { reversal: deps.reversal, ledger: deps.ledger });
  const checked = new Set<string>();
  const reports: Report[] = [healed, report([], [...corrected, ...settled])];
  for (const o of mine.orders) {
    const marker = purchaseMarker(o.source, o.orderId);
    checked.add(marker);
    reports.push(checkOrder(o, customerId, entries.get(marker) ?? []));
  }
  for (const r of mine.refunds) {
    const marker = refundMarker(r.source, r.orderId, r.refundId);
    checked.add(marker);
    reports.push(await checkRefund(r, customerId, entries.get(marker) ?? [], orderOf));
  }
  let extraOrders = 0;
  let extraRefunds = 0;
  for (const [marker, stray] of entries) {
    if (checked.has(marker)) continue;
    const { found, order, refund } = await strayEntries(marker, stray, customerId, deps, orderOf);
    reports.push(found);
    if (order) extraOrders++;
    if (refund) extraRefunds++;
  }
  return { ...joined(reports), duplicates: healed.duplicates, reversed: healed.reversed, extraOrders, extraRefunds, historyPages };
}

/**
 * Reconciles ledger records with the membership service's point histories: each credited order has
 * exactly one entry with its marker, of the recorded size; each refund at most one debit entry with its
 * marker, of the recorded size (none when it debited nothing); and no entry carries a marker of ours
 * that the ledger does not know, or knows as not having moved points. Operations still in flight
 * (a lease or a call of unknown outcome) are notes, not drift, unless the history already shows
 * more than one entry for them (never right). Every extra entry of a marker of ours found more than once
 * is reversed, exactly once (duplicates.ts): a duplicate not reversed before the run is drift.
 */
export async function auditLedger(records: LedgerRecords, deps: AuditDeps): Promise<AuditResult> {
  const range = inRange(records, deps.ledger);
  const { customers, findings } = await byCustomer(range);
  const reports: Report[] = [report(findings)];
  const result = {
    orders: range.orders.size,
    refunds: range.refunds.size,
    customers: customers.size,
    historyPages: 0,
    duplicates: 0,
    reversed: 0,
  };
  let customersDone = 0;
  for (const [customerId, mine] of customers) {
    const audited = await auditCustomer(customerId, mine, deps, range.orderOf);
    reports.push(audited);
    result.orders += audited.extraOrders;
    result.refunds += audited.extraRefunds;
    result.historyPages += audited.historyPages;
    result.duplicates += audited.duplicates;
    result.reversed += audited.reversed;
    deps.onProgress?.({ customersDone: ++customersDone, customers: customers.size, historyPages: result.historyPages });
  }
  return { ...result, ...joined(reports) };
}
