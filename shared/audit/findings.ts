/**
 * What the audit reports. A finding is drift: the point history and the ledger disagree on money.
 * A note is not drift: something the audit could not decide yet (an operation still in flight), could
 * not read (a withdrawn customer's history), or a credit whose size the ledger only knows as a hint.
 */
export type FindingKind =
  | 'missing_credit'
  | 'duplicate_credit'
  | 'credit_size'
  | 'credit_not_recorded'
  | 'missing_debit'
  | 'duplicate_debit'
  | 'duplicate_entry'
  | 'debit_size'
  | 'debit_not_recorded'
  | 'wrong_customer'
  | 'foreign_marker'
  | 'no_customer';

export type NoteKind = 'in_flight' | 'history_unreadable' | 'hint_differs' | 'reversal_short' | 'debit_corrected' | 'shortfall_settled';

/** One history entry as the finding shows it. */
export interface EntryView {
  id: string;
  point: number;
  createdAt: string;
}

export interface Finding {
  kind: FindingKind;
  source: string;
  orderId: string;
  refundId?: string;
  customerId?: string;
  marker: string;
  /** What differs, in words. */
  detail: string;
  /** The entries of the history carrying the marker. */
  entries: EntryView[];
}

export interface Note {
  kind: NoteKind;
  source?: string;
  orderId?: string;
  refundId?: string;
  customerId?: string;
  detail: string;
}

export interface AuditResult {
  orders: number;
  refunds: number;
  customers: number;
  historyPages: number;
  /** Extra history entries of a duplicated marker not reversed before this run, and those this run reversed. */
  duplicates: number;
  reversed: number;
  findings: Finding[];
  notes: Note[];
}

const op = (f: { source?: string; orderId?: string; refundId?: string }) =>
  `${f.source ?? '-'} order ${f.orderId ?? '-'}${f.refundId !== undefined ? ` refund ${f.refundId}` : ''}`;

/** `drift <kind>: <source> order <id> [refund <id>], customer <id>: <detail>` */
export function findingLine(f: Finding): string {
  return `drift ${f.kind}: ${op(f)}, customer ${f.customerId ?? '-'}: ${f.detail}`;
}

export function noteLine(n: Note): string {
  return `note ${n.kind}: ${n.orderId !== undefined ? `${op(n)}, ` : ''}customer ${n.customerId ?? '-'}: ${n.detail}`;
}

/** The fixed last line of `npm run audit`. */
export function summaryLine(r: Pick<AuditResult, 'orders' | 'refunds' | 'findings' | 'duplicates' | 'reversed'>): string {
  return `audit: orders=${r.orders} refunds=${r.refunds} drift=${r.findings.length} duplicates=${r.duplicates} reversed=${r.reversed}`;
}

/** What a scheduled audit run answers (functions/audit-ledger.ts): its counts and where it began. */
export type AuditSummary = { orders: number; refunds: number; drift: number; duplicates: number; reversed: number; from: string };

export function auditSummary(result: AuditResult, fromMs: number): AuditSummary {
  const { orders, refunds, duplicates, reversed } = result;
  return { orders, refunds, drift: result.findings.length, duplicates, reversed, from: new Date(fromMs).toISOString() };
}
