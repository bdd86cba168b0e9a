import type { JsonAnswer } from '../http/index.js';
import { DAY_MS } from '../../shared/time/index.js';

/** How wide one list query may be (Smaregi refuses wider date ranges; the reconcile asks in windows). */
export const MAX_LIST_DAYS = 31;

/**
 * The date filters of Smaregi's list: one of them is required (as Smaregi does), a range at most 31 days.
 * `sum_date` is the closing date (締め日, YYYY-MM-DD: the Tokyo date of the sale here).
 */
const RANGES = [
  { from: 'upd_date_time-from', to: 'upd_date_time-to', field: (tx: Row) => tx.updDateTime ?? tx.transactionDateTime },
  { from: 'transaction_date_time-from', to: 'transaction_date_time-to', field: (tx: Row) => tx.transactionDateTime },
  {
    from: 'terminal_tran_date_time-from',
    to: 'terminal_tran_date_time-to',
    field: (tx: Row) => tx.terminalTranDateTime ?? tx.transactionDateTime,
  },
] as const;

type Row = Record<string, unknown>;

/**
 * The stand-in's `GET /{contract_id}/pos/transactions`: the transactions within the date filter given
 * (`upd_date_time`, `transaction_date_time` or `terminal_tran_date_time` -from/-to, or `sum_date`),
 * optionally of one `transaction_head_division` and of one member (`customer_code`: the head's code, or
 * its customer's, as Smaregi fills the head's from the member master), ordered by `sort` (`name[:asc|desc]`, comma-separated;
 * default transactionHeadId), `limit` (at most 1000) per `page` (1-based). The entries carry the head
 * only, as Smaregi's list does without details.
 */
export function listTransactions(all: Row[], query: URLSearchParams, codeOf: (tx: Row) => unknown = (tx) => tx.customerCode): JsonAnswer {
  const filter = dateFilter(query);
  if ('error' in filter) return bad(filter.error);
  const limit = Number(query.get('limit') ?? '100');
  const page = Number(query.get('page') ?? '1');
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(page) || page < 1)
    return bad('limit is 1-1000, page from 1');
  const division = query.get('transaction_head_division');
  const order = sortOrder(query.get('sort'));
  if ('error' in order) return bad(order.error);
  const code = query.get('customer_code');
  const within = all
    .filter(
      (tx) => filter.keep(tx) && (division === null || tx.transactionHeadDivision === division) && (code === null || codeOf(tx) === code),
    )
    .sort(order.compare);
  const items = within.slice((page - 1) * limit, page * limit).map(({ details: _d, customer: _c, ...head }) => head);
  return { status: 200, body: items };
}

function dateFilter(query: URLSearchParams): { keep: (tx: Row) => boolean } | { error: string } {
  const given = RANGES.filter((r) => query.has(r.from) || query.has(r.to));
  const sumDate = query.get('sum_date');
  if (given.length + (sumDate === null ? 0 : 1) === 0)
    return { error: 'one of sum_date, transaction_date_time, upd_date_time or terminal_tran_date_time (-from/-to) is required' };
  const keeps: ((tx: Row) => boolean)[] = [];
  for (const r of given) {
    const from = Date.parse(query.get(r.from) ?? '');
    const to = Date.parse(query.get(r.to) ?? '');
    if (Number.isNaN(from) || Number.isNaN(to) || to < from) return { error: `${r.from} and ${r.to} must be dates, from before to` };
    if (to - from > MAX_LIST_DAYS * DAY_MS) return { error: `the date range must be ${MAX_LIST_DAYS} days or less` };
    keeps.push((tx) => {
      const at = Date.parse(String(r.field(tx) ?? ''));
      return !Number.isNaN(at) && at >= from && at <= to;
    });
  }
  if (sumDate !== null) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(sumDate)) return { error: 'sum_date must be YYYY-MM-DD' };
    keeps.push((tx) => tokyoDate(tx.transactionDateTime) === sumDate);
  }
  return { keep: (tx) => keeps.every((k) => k(tx)) };
}

function tokyoDate(value: unknown): string | undefined {
  const at = Date.parse(String(value ?? ''));
  return Number.isNaN(at) ? undefined : new Date(at + 9 * 3_600_000).toISOString().slice(0, 10);
}

const NUMERIC = new Set(['transactionHeadId', 'storeId', 'terminalId', 'customerId']);
const TIMES = new Set(['transactionDateTime', 'updDateTime', 'terminalTranDateTime']);

function sortOrder(sort: string | null): { compare: (a: Row, b: Row) => number } | { error: string } {
  const keys = (sort ?? 'transactionHeadId').split(',').map((k) => {
    const [name = '', dir = 'asc'] = k.trim().split(':');
    return { name, desc: dir === 'desc', ok: /^[A-Za-z]{1,64}$/.test(name) && (dir === 'asc' || dir === 'desc') };
  });
  if (keys.some((k) => !k.ok)) return { error: 'sort is name[:asc|desc], comma-separated' };
  const value = (row: Row, name: string): number | string => {
    const v = String(row[name] ?? '');
    if (NUMERIC.has(name)) return v === '' ? -1 : Number(v);
    if (TIMES.has(name)) return Date.parse(v) || 0;
    return v;
  };
  return {
    compare: (a, b) => {
      for (const k of keys) {
        const x = value(a, k.name);
        const y = value(b, k.name);
        if (x !== y) return (x < y ? -1 : 1) * (k.desc ? -1 : 1);
      }
      return 0;
    },
  };
}

const bad = (detail: string): JsonAnswer => ({ status: 400, body: { type: 'about:blank', title: 'Bad Request', detail, status: 400 } });
