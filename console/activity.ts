import { type ActivityEntry, createActivityReader } from '../shared/activity/index.js';
import type { TimelineEntry } from './orders.js';
import type { ConsoleSource } from './source.js';

/**
 * The activity record (shared/activity) as the console shows it: an order's deliveries, queue receives
 * and Open API calls as timeline entries, and the runs and breaker transitions for their panel. What is
 * shown is what was observed, best effort; the ledger's entries beside them stay the account of record.
 */

function describe(e: ActivityEntry): Pick<TimelineEntry, 'what' | 'marker' | 'points'> {
  const refund = e.refundId ? ` (refund ${e.refundId})` : '';
  switch (e.type) {
    case 'delivery':
      return {
        what: `delivery received${refund}: webhook ${e.deliveryId}${e.topic ? ` ${e.topic}` : ''}, answered HTTP ${e.status} ${e.answer}`,
      };
    case 'receive': {
      const deferred = e.deferSeconds === undefined ? '' : `, deferred ${e.deferSeconds} s`;
      const why = e.reason ? `: ${e.reason}` : '';
      return { what: `queue receive ${e.receiveCount} of message ${e.messageId}${refund}: ${e.outcome} (${e.action}${deferred})${why}` };
    }
    case 'call': {
      const executed = e.executed ? `, executed ${e.executed}` : '';
      return {
        what: `Open API ${e.operation}${refund}: ${e.result}${executed} in ${e.ms} ms`,
        ...(e.marker ? { marker: e.marker } : {}),
        ...(e.points === undefined ? {} : { points: e.points }),
      };
    }
  }
}

export async function activityTimeline(source: ConsoleSource, ref: { source: string; orderId: string }): Promise<TimelineEntry[]> {
  const reader = createActivityReader(source.ledger.client, source.ledger.tableName);
  const activity = await reader.order(ref.source, ref.orderId);
  const entries: TimelineEntry[] = activity.entries.map((e) => ({
    at: e.at,
    from: 'activity',
    ...(e.refundId ? { refundId: e.refundId } : {}),
    ...describe(e),
  }));
  const last = activity.entries.at(-1);
  if (activity.omitted > 0 && last) {
    entries.push({ at: last.at, from: 'activity', what: `activity: ${activity.omitted} later entries not kept (the record is bounded)` });
  }
  return entries;
}

/** The audit and reconcile runs (newest first) and the breaker's transitions (newest first). */
export async function operations(source: ConsoleSource) {
  const reader = createActivityReader(source.ledger.client, source.ledger.tableName);
  const [runs, breaker] = await Promise.all([reader.runs(), reader.breaker()]);
  return { runs: [...runs].reverse(), breaker: [...breaker].reverse() };
}
