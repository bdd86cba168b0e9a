import { type ActivityEntry, createActivityReader } from '../shared/activity/index.js';
import { message } from './messages.js';
import type { TimelineEntry } from './orders.js';
import type { ConsoleSource } from './source.js';

/**
 * The activity record (shared/activity) as the console shows it: an order's deliveries, queue receives
 * and Open API calls as timeline entries, and the runs and breaker transitions for their panel. What is
 * shown is what was observed, best effort; the ledger's entries beside them stay the account of record.
 */

function describe(e: ActivityEntry): Pick<TimelineEntry, 'what' | 'marker' | 'points'> {
  const refund = e.refundId ? message('timeline.ofRefund', { refund: e.refundId }) : '';
  switch (e.type) {
    case 'delivery':
      return {
        what: message('timeline.delivery', {
          refund,
          delivery: e.deliveryId,
          topic: e.topic ? ` ${e.topic}` : '',
          status: e.status,
          answer: e.answer,
        }),
      };
    case 'receive': {
      const deferred = e.deferSeconds === undefined ? '' : message('timeline.deferred', { seconds: e.deferSeconds });
      return {
        what: message('timeline.receive', {
          count: e.receiveCount,
          message: e.messageId,
          refund,
          outcome: e.outcome,
          action: e.action,
          deferred,
          why: e.reason ? `: ${e.reason}` : '',
        }),
      };
    }
    case 'call': {
      const executed = e.executed ? message('timeline.executed', { executed: e.executed }) : '';
      return {
        what: message('timeline.call', { operation: e.operation, refund, result: e.result, executed, ms: e.ms }),
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
    entries.push({ at: last.at, from: 'activity', what: message('timeline.omitted', { count: activity.omitted }) });
  }
  return entries;
}

/** The audit and reconcile runs (newest first) and the breaker's transitions (newest first). */
export async function operations(source: ConsoleSource) {
  const reader = createActivityReader(source.ledger.client, source.ledger.tableName);
  const [runs, breaker] = await Promise.all([reader.runs(), reader.breaker()]);
  return { runs: [...runs].reverse(), breaker: [...breaker].reverse() };
}
