import type { JsonAnswer } from '../http/index.js';

/** How wide one list query may be (Smaregi refuses wider date ranges; the reconcile asks in windows). */
export const MAX_LIST_DAYS = 31;
const DAY_MS = 86_400_000;

/**
 * The stand-in's `GET /{contract_id}/pos/transactions`: the transactions whose `updDateTime` (else
 * `transactionDateTime`) is within `upd_date_time-from` .. `upd_date_time-to`, by id, `limit` (at most
 * 1000) per `page` (1-based). The list entries carry the head only, as Smaregi's list does without details.
 */
export function listTransactions(all: Record<string, unknown>[], query: URLSearchParams): JsonAnswer {
  const from = Date.parse(query.get('upd_date_time-from') ?? '');
  const to = Date.parse(query.get('upd_date_time-to') ?? '');
  if (Number.isNaN(from) || Number.isNaN(to) || to < from)
    return bad('upd_date_time-from and upd_date_time-to must be dates, from before to');
  if (to - from > MAX_LIST_DAYS * DAY_MS) return bad(`the date range must be ${MAX_LIST_DAYS} days or less`);
  const limit = Number(query.get('limit') ?? '100');
  const page = Number(query.get('page') ?? '1');
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(page) || page < 1)
    return bad('limit is 1-1000, page from 1');
  const within = all
    .filter((tx) => {
      const at = Date.parse(String(tx.updDateTime ?? tx.transactionDateTime ?? ''));
      return !Number.isNaN(at) && at >= from && at <= to;
    })
    .sort((a, b) => Number(BigInt(String(a.transactionHeadId)) - BigInt(String(b.transactionHeadId))));
  const items = within.slice((page - 1) * limit, page * limit).map(({ details: _d, customer: _c, ...head }) => head);
  return { status: 200, body: items };
}

const bad = (detail: string): JsonAnswer => ({ status: 400, body: { type: 'about:blank', title: 'Bad Request', detail, status: 400 } });
