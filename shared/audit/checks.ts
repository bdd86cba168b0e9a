import type { OrderRecord, RefundRecord } from '../ledger/index.js';
import type { PointItem } from '../openapi/index.js';
import { purchaseMarker, refundMarker } from '../points/index.js';
import type { EntryView, Finding, Note } from './findings.js';

/** What one step of the audit found: drift, and what it could not decide. Steps return theirs; the audit joins them. */
export interface Report {
  findings: Finding[];
  notes: Note[];
}

export const report = (findings: Finding[] = [], notes: Note[] = []): Report => ({ findings, notes });

/** The reports one after the other, in order. */
export const joined = (reports: Report[]): Report =>
  report(
    reports.flatMap((r) => r.findings),
    reports.flatMap((r) => r.notes),
  );

export const view = (p: PointItem): EntryView => ({ id: p.id, point: p.point, createdAt: p.created_at });
export const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
export const listed = (entries: PointItem[]) => entries.map((e) => `${signed(e.point)} (entry ${e.id})`).join(', ');

/** An operation still under way whose entry is already in the history: a note, not drift (it will be booked). */
function inFlight(entries: PointItem[], where: Omit<Note, 'kind' | 'detail'>, what: string): Report {
  if (entries.length === 0) return report();
  return report([], [{ kind: 'in_flight', ...where, detail: `${what} is in the history and will be booked when it is found` }]);
}

/** A credited order against the entry carrying its marker: present once, of the recorded size. */
function checkCredit(o: OrderRecord, customerId: string, entries: PointItem[], base: Omit<Finding, 'kind' | 'detail'>): Report {
  const size = o.pointsCredited ?? o.pointsHint;
  const [first] = entries;
  if (first === undefined) {
    const detail = `the ledger records a credit of ${size ?? '?'} points; no history entry carries the order's marker`;
    return report([{ ...base, kind: 'missing_credit', detail }]);
  }
  if (o.pointsCredited !== undefined && first.point !== o.pointsCredited) {
    const detail = `the history entry credits ${signed(first.point)}; the ledger records ${o.pointsCredited}`;
    return report([{ ...base, kind: 'credit_size', detail }]);
  }
  if (o.pointsCredited === undefined && o.pointsHint !== undefined && first.point !== o.pointsHint) {
    // Only the balance difference around the grant was recorded: other moves in between change it.
    // The entry is the exact credit (refunds read it from there), so this is not drift.
    const detail = `the history entry credits ${signed(first.point)}; the balance moved by ${signed(o.pointsHint)} around the grant (other moves in between)`;
    return report([], [{ kind: 'hint_differs', source: o.source, orderId: o.orderId, customerId, detail }]);
  }
  return report();
}

/**
 * A fixed deduction booked on its order (points spent at a till: `<sale>/spend-<g>`, outcome debited, or
 * clamped): its one entry carries the order's marker at the booked size; none when nothing was taken.
 */
function checkDeduction(o: OrderRecord, entries: PointItem[], base: Omit<Finding, 'kind' | 'detail'>): Report {
  const booked = o.pointsCredited ?? 0;
  const [first] = entries;
  if (first === undefined) {
    if (booked === 0) return report();
    return report([
      {
        ...base,
        kind: 'missing_credit',
        detail: `the ledger records a deduction of ${booked} points; no history entry carries the order's marker`,
      },
    ]);
  }
  if (first.point === booked) return report();
  return report([
    { ...base, kind: 'credit_size', detail: `the history entry moves ${signed(first.point)}; the ledger records a deduction of ${booked}` },
  ]);
}

/** One order against the history entries carrying its marker. */
export function checkOrder(o: OrderRecord, customerId: string, entries: PointItem[]): Report {
  const marker = purchaseMarker(o.source, o.orderId);
  const base = { source: o.source, orderId: o.orderId, customerId, marker, entries: entries.map(view) };
  if (entries.length > 1) {
    const detail = `${entries.length} history entries carry the order's marker (${listed(entries)}); the ledger records one credit`;
    return report([{ ...base, kind: 'duplicate_credit', detail }]);
  }
  if (o.state === 'done' && o.outcome === 'credited') return checkCredit(o, customerId, entries, base);
  if (o.state === 'done' && (o.outcome === 'debited' || o.outcome === 'insufficient_points') && o.pointsCredited !== undefined) {
    return checkDeduction(o, entries, base);
  }
  // A doubt on a done order is a provisional one's, kept for its moment (shared/points/purchase.ts `pend`): in flight
  // while it may still earn; once it never will (not_earned), a credit that landed is drift like any other.
  if (o.state === 'pending' || (o.needsReconcile === true && o.outcome !== 'not_earned')) {
    const where = { source: o.source, orderId: o.orderId, customerId };
    return inFlight(entries, where, `the purchase is still in progress (state ${o.state}); its credit`);
  }
  if (entries.length === 0) return report();
  const detail = `the history credits ${listed(entries)}; the ledger says ${o.state}${o.outcome ? ` (${o.outcome})` : ''}, no credit`;
  return report([{ ...base, kind: 'credit_not_recorded', detail }]);
}

/** A refund whose debit the ledger does not (yet) record: in flight, or an entry it does not know of. */
function checkUnrecordedDebit(
  r: RefundRecord,
  customerId: string,
  entries: PointItem[],
  inDoubt: boolean,
  base: Omit<Finding, 'kind' | 'detail'>,
): Report {
  if (r.state === 'pending' || inDoubt) {
    const where = { source: r.source, orderId: r.orderId, refundId: r.refundId, customerId };
    return inFlight(entries, where, `the refund is still in progress (state ${r.state}); its debit`);
  }
  if (entries.length === 0) return report();
  const detail = `the history debits ${listed(entries)}; the ledger says ${r.state}${r.outcome ? ` (${r.outcome})` : ''}, no debit`;
  return report([{ ...base, kind: 'debit_not_recorded', detail }]);
}

/** A recorded debit against the entry carrying the refund's marker: none for 0, else one of its size. */
function checkDebit(r: RefundRecord, recorded: number, entries: PointItem[], base: Omit<Finding, 'kind' | 'detail'>): Report {
  if (recorded === 0) {
    if (entries.length === 0) return report();
    const detail = `the history debits ${listed(entries)}; the ledger records no debit (${r.outcome ?? r.state})`;
    return report([{ ...base, kind: 'debit_not_recorded', detail }]);
  }
  const [first] = entries;
  if (first === undefined) {
    const detail = `the ledger records a debit of ${recorded} points; no history entry carries the refund's marker`;
    return report([{ ...base, kind: 'missing_debit', detail }]);
  }
  if (first.point === -recorded) return report();
  const detail = `the history entry debits ${signed(first.point)}; the ledger records -${recorded}`;
  return report([{ ...base, kind: 'debit_size', detail }]);
}

/** One refund against the history entries carrying its marker; its order's book is read only when needed. */
export async function checkRefund(
  r: RefundRecord,
  customerId: string,
  entries: PointItem[],
  orderOf: (source: string, orderId: string) => Promise<OrderRecord | undefined>,
): Promise<Report> {
  const marker = refundMarker(r.source, r.orderId, r.refundId);
  const base = { source: r.source, orderId: r.orderId, refundId: r.refundId, customerId, marker, entries: entries.map(view) };
  if (entries.length > 1) {
    const detail = `${entries.length} history entries carry the refund's marker (${listed(entries)}); at most one debit is allowed`;
    return report([{ ...base, kind: 'duplicate_debit', detail }]);
  }
  const order = await orderOf(r.source, r.orderId);
  // Booked on the order (applyRefund) before the refund record was finished: the order's book counts.
  const recorded = r.state === 'done' ? (r.pointsDebited ?? 0) : order?.refunds[r.refundId]?.debited;
  const inDoubt = order?.refundsInDoubt.includes(r.refundId) === true;
  if (recorded === undefined || (inDoubt && r.state !== 'done')) return checkUnrecordedDebit(r, customerId, entries, inDoubt, base);
  return checkDebit(r, recorded, entries, base);
}
