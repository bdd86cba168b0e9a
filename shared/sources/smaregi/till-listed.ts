import type { TillMirrorRecord } from '../../ledger/index.js';
import { DAY_MS } from '../../time/index.js';
import type { SmaregiClient } from './client.js';
import { MAX_WINDOW_DAYS, PAGE_LIMIT, smaregiTime } from './reconcile.js';
import type { SmaregiTransactionListItem } from './transaction.js';
import type { WindowChange } from './till-window.js';

/**
 * What the member's own till transactions say of a mirror add's window, read from Smaregi's list (its
 * `customer_code` and `upd_date_time` filters) when the add's step is settled: the till's spends whose
 * webhook we have not had yet, which the ledger's notes (till-window.ts) cannot know of.
 *
 * A listed transaction we were told of since its last change (a till note of it learned at or after its
 * `updDateTime`) is already among the notes. Of the others:
 * - a sale made in the window and never changed since (not voided, no return, no staff division) moved
 *   the point by what its head says (`newPoint - spendPoint`, 0: nothing): a maybe, counted;
 * - any other (an edit, a void, a return-cancellation, a staff change, a point expiry record) moved it
 *   by something its current state does not tell (an edit from 300 spent to 200 gave back 100): not counted.
 * Either is a change nothing in the ledger explains: the settle may still find the add landed by the
 * numbers, but never sends it again over one (it could be the change that cancels the add exactly).
 */
export interface ListedChanges {
  /** Changes counted into the window (each a maybe: the till's clock is not ours). */
  maybes: WindowChange[];
  /** The transactions (ids) that moved the point by something the ledger does not explain. */
  unexplained: string[];
  /** Some of them moved it by an amount their state does not tell. */
  uncounted: boolean;
}

/** A listed sale changed within this long of its making counts as never changed (the till's own registration). */
const FRESH_MS = 60_000;
/** Listed this much wider on each side than the window: Smaregi's clock is not ours. */
const MARGIN_MS = 60_000;

const points = (text: string | null | undefined) => {
  const n = Number(text ?? '0');
  return Number.isSafeInteger(n) ? n : Number.NaN;
};
/** A time of Smaregi's list (offset given; a local time is Tokyo's). */
const instant = (text: string | null | undefined) => Date.parse(/[Zz]|[+-]\d{2}:?\d{2}$/.test(text ?? '') ? (text ?? '') : `${text}+09:00`);

/** The transaction id a till note is of (its marker names `<transaction>/spend-<g>`, `.../back` or `<transaction>/staff`). */
function noteOf(marker: string): string | undefined {
  const order = /:order:([^:]+)$/.exec(marker)?.[1];
  return order === undefined ? undefined : decodeURIComponent(order).split('/', 1)[0];
}

export function listedChanges(items: readonly SmaregiTransactionListItem[], notes: readonly TillMirrorRecord[]): ListedChanges {
  const learned = new Map<string, number>();
  for (const n of notes) {
    const id = n.state === 'till' ? noteOf(n.marker) : undefined;
    if (id !== undefined) learned.set(id, Math.max(learned.get(id) ?? 0, Date.parse(n.createdAt)));
  }
  const out: ListedChanges = { maybes: [], unexplained: [], uncounted: false };
  for (const tx of items) {
    const changed = instant(tx.updDateTime ?? tx.transactionDateTime);
    if ((learned.get(tx.transactionHeadId) ?? Number.NEGATIVE_INFINITY) >= changed) continue;
    const moved = points(tx.newPoint) - points(tx.spendPoint);
    const fresh = changed - instant(tx.transactionDateTime) <= FRESH_MS;
    const plainSale =
      tx.transactionHeadDivision === '1' && tx.cancelDivision !== '1' && tx.returnSales !== '1' && (tx.disposeDivision ?? '0') === '0';
    if (fresh && plainSale && moved === 0) continue;
    out.unexplained.push(tx.transactionHeadId);
    if (fresh && plainSale && Number.isSafeInteger(moved)) out.maybes.push({ points: moved, certain: false });
    else out.uncounted = true;
  }
  return out;
}

/**
 * The member's transactions changed or received from just before the step's read (`readAt`) until now,
 * against the notes: two list calls (a page of 1,000 at most each), by `upd_date_time` and by
 * `transaction_date_time`. An offline till's sale reaches Smaregi when the till is back: its spend moves
 * the point then, inside the window, while the times the till stamped (its sale, maybe its last change)
 * are older; the server's receipt is in the window. A window Smaregi cannot list in one call (longer than
 * 31 days, a full page) or a customer without a code explains nothing: `uncounted`.
 */
export async function listedSince(
  client: Pick<SmaregiClient, 'listTransactions'>,
  customerCode: string | undefined,
  window: { readAt: number; now: number },
  notes: readonly TillMirrorRecord[],
): Promise<ListedChanges> {
  const from = window.readAt - MARGIN_MS;
  const to = window.now + MARGIN_MS;
  if (customerCode === undefined) return { maybes: [], unexplained: ['(a customer without a code)'], uncounted: true };
  if (to - from > MAX_WINDOW_DAYS * DAY_MS) return { maybes: [], unexplained: ['(a window longer than Smaregi lists)'], uncounted: true };
  const range = { from: smaregiTime(new Date(from)), to: smaregiTime(new Date(to)), page: 1, limit: PAGE_LIMIT, customerCode };
  const pages = await Promise.all(
    (['upd_date_time', 'transaction_date_time'] as const).map((by) => client.listTransactions({ ...range, by })),
  );
  const items = [...new Map(pages.flatMap((p) => p.items).map((tx) => [tx.transactionHeadId, tx])).values()];
  const listed = listedChanges(items, notes);

  const full = pages.some((p) => p.items.length >= PAGE_LIMIT);
  return full ? { ...listed, unexplained: [...listed.unexplained, '(a full page)'], uncounted: true } : listed;
}
