import type { PointsEvent } from '../../events/index.js';
import type { QueueMessage } from '../../queue/index.js';
import { type ChainOrder, readChain } from '../../points/index.js';
import type { SmaregiClient } from './client.js';
import { SmaregiError } from './errors.js';
import { CANCEL_REFUND_ID, resolveTransaction } from './resolve.js';
import { readSpends } from './spend.js';
import type { SmaregiThinEvent } from './thin.js';
import { linkOf, type SmaregiTransactionListItem } from './transaction.js';
import { DAY_MS } from '../../time/index.js';

/**
 * Missed webhooks: Smaregi documents no retries, and deliveries missed while the receiver was down may
 * never come. The contract's transactions updated in a window are listed (31 days per query at most,
 * 1000 per page) and each one whose state the ledger does not show yet (never recorded, voided or returned
 * but never taken back, edited or given a member with no webhook) is fed in as a thin event, the
 * same as a webhook's: the worker fetches it and the ledger's claims make a late webhook change nothing.
 */
export const MAX_WINDOW_DAYS = 31;
export const PAGE_LIMIT = 1000;

export interface SmaregiReconcileDeps {
  client: Pick<SmaregiClient, 'listTransactions' | 'getTransaction'>;
  /** The ledger's reads (structural, not shared/ledger's types: the chain reads the ledger's records without importing them). */
  ledger: {
    getOrder(ref: {
      source: string;
      orderId: string;
    }): Promise<(ChainOrder & { reason?: string | undefined; redactedAt?: string | undefined }) | undefined>;
    getRefund(ref: { source: string; orderId: string; refundId: string }): Promise<object | undefined>;
  };
  source: string;
  /** The thin event a webhook naming this transaction would have queued. */
  thinEvent(transactionHeadId: string): SmaregiThinEvent;
  queueMessage(event: PointsEvent): QueueMessage;
  queue: { send(message: QueueMessage): Promise<void> };
  progress?: (line: string) => void;
  onMissing?: (missing: { transactionHeadId: string; why: string; updatedAt: string | undefined }) => void;
}

export interface SmaregiReconcileResult {
  scanned: number;
  missing: number;
  enqueued: number;
}

/** [since, until] cut into windows of at most 31 days. */
export function smaregiWindows(since: Date, until: Date): { from: Date; to: Date }[] {
  const windows: { from: Date; to: Date }[] = [];
  for (let from = since.getTime(); from < until.getTime(); from += MAX_WINDOW_DAYS * DAY_MS) {
    windows.push({ from: new Date(from), to: new Date(Math.min(from + MAX_WINDOW_DAYS * DAY_MS, until.getTime())) });
  }
  return windows;
}

/** Smaregi's date form with an offset (`YYYY-MM-DDThh:mm:ss+09:00`): the list filters on Tokyo time. */
export function smaregiTime(d: Date): string {
  const tokyo = new Date(d.getTime() + 9 * 3_600_000);
  return `${tokyo.toISOString().slice(0, 19)}+09:00`;
}

export async function reconcileSmaregi(
  deps: SmaregiReconcileDeps,
  options: { since: Date; until: Date; dryRun: boolean },
): Promise<SmaregiReconcileResult> {
  const result = { scanned: 0, missing: 0, enqueued: 0 };
  for (const window of smaregiWindows(options.since, options.until)) {
    for (let page = 1; ; page++) {
      // Smaregi's times have whole seconds: the window's end is rounded up so nothing of its last second is left out.
      const to = smaregiTime(new Date(window.to.getTime() + 999));
      const { items } = await deps.client.listTransactions({ from: smaregiTime(window.from), to, page, limit: PAGE_LIMIT });
      deps.progress?.(`reconcile: ${window.from.toISOString()} .. ${window.to.toISOString()} page ${page}: ${items.length} transaction(s)`);
      for (const item of items) {
        result.scanned += 1;
        const why = await missingBecause(deps, item);
        if (why === undefined) continue;
        result.missing += 1;
        deps.onMissing?.({ transactionHeadId: item.transactionHeadId, why, updatedAt: item.updDateTime ?? undefined });
        if (options.dryRun) continue;
        await deps.queue.send(deps.queueMessage(deps.thinEvent(item.transactionHeadId)));
        result.enqueued += 1;
      }
      if (items.length < PAGE_LIMIT) break;
    }
  }
  return result;
}

const field = (item: SmaregiTransactionListItem, name: string): string | undefined => {
  const v = (item as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
};

/** Why the ledger does not show this transaction's current state, or undefined when it does. */
async function missingBecause(deps: SmaregiReconcileDeps, item: SmaregiTransactionListItem): Promise<string | undefined> {
  const id = item.transactionHeadId;
  const source = deps.source;
  const link = linkOf(field(item, 'disposeServerTransactionHeadId'));
  const linked = link !== undefined && link !== id ? link : undefined;
  if (field(item, 'disposeDivision') === '2' || field(item, 'returnSales') === '1') {
    const ref = linked
      ? { source, orderId: linked, refundId: field(item, 'disposeDivision') === '2' ? CANCEL_REFUND_ID : `return-${id}` }
      : { source, orderId: 'unlinked', refundId: id };
    return (await deps.ledger.getRefund(ref)) ? undefined : 'its return was never recorded';
  }
  const order = await deps.ledger.getOrder({ source, orderId: id });
  if (!order) return 'never recorded';
  // A sale a privacy erase redacted moves no points again (shared/sources/smaregi/state.ts): nothing is missing.
  if (order.redactedAt !== undefined && order.externalId === undefined) return undefined;
  const cancelled = field(item, 'cancelDivision') === '1' || field(item, 'disposeDivision') === '1';
  if (cancelled && order.outcome === 'credited' && !(await deps.ledger.getRefund({ source, orderId: id, refundId: CANCEL_REFUND_ID }))) {
    return 'voided, but its credit was never taken back';
  }
  if (cancelled) return undefined;
  return await editMissed(deps, item, order);
}

/** A change later than the sale itself (an edit, a member attached): only these are read again. */
const EDIT_AFTER_MS = 60_000;

/**
 * An edit whose webhook never came: the transaction, read again, earns other than what the ledger shows
 * (what resolving its state would run now is not all recorded), or a member was attached to a sale
 * recorded without one. Only the sales a chain hangs off (credited, or waiting for a customer's link) and
 * sales awaiting a member, changed after they were made.
 */
async function editMissed(
  deps: SmaregiReconcileDeps,
  item: SmaregiTransactionListItem,
  order: ChainOrder & { reason?: string | undefined },
): Promise<string | undefined> {
  const awaitingMember = order.outcome === 'skipped' && order.reason === 'no_customer';
  // A chain's base that credited nobody yet (waiting for its customer's link, or skipped by it) is followed as a credited one.
  const chained = order.outcome === 'credited' || order.outcome === 'customer_not_found' || order.reason === 'sale_moved';
  if (order.state !== 'done' || (!chained && !awaitingMember)) return undefined;
  const made = Date.parse(item.transactionDateTime ?? '');
  const changed = Date.parse(item.updDateTime ?? '');
  if (Number.isNaN(made) || Number.isNaN(changed) || changed - made < EDIT_AFTER_MS) return undefined;
  const id = item.transactionHeadId;
  const thin = deps.thinEvent(id);
  let tx: Awaited<ReturnType<SmaregiClient['getTransaction']>>;
  try {
    tx = await deps.client.getTransaction(id);
  } catch (e) {
    // Deleted since it was listed: the webhook of the deletion, or the next run, finds it gone.
    if (e instanceof SmaregiError && e.kind === 'not_found') return undefined;
    throw e;
  }
  const chain = await readChain((ref) => deps.ledger.getOrder(ref), deps.source, id);
  // Under tillPoints membership a missed edit of the points spent is found the same way (spend.ts).
  const spends = thin.stateFrom.tillPoints === 'membership' ? await readSpends((ref) => deps.ledger.getOrder(ref), deps.source, id) : [];
  const { events } = resolveTransaction(thin, thin.stateFrom, tx, { chain, spends });
  const [sale, ...rest] = events;
  if (awaitingMember)
    return sale?.type === 'purchase' && sale.customer && !sale.notEarning ? 'a member was attached, but its edit never came' : undefined;
  for (const e of rest) {
    const done =
      e.type === 'refund'
        ? await deps.ledger.getRefund({ source: deps.source, orderId: e.orderId, refundId: e.refundId })
        : await deps.ledger.getOrder({ source: deps.source, orderId: e.orderId });
    if (!done) return 'edited, but its edit never came';
  }
  return undefined;
}
