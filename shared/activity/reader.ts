import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ACTIVITY_FIELD, orderKey, refundKey } from '../ledger/index.js';
import { ActivityEntry, BreakerTransition, OrderActivity, RunSummary } from './entries.js';
import { BREAKER_KEY, orderActivityKey, RUNS_KEY } from '../ledger/index.js';
import { createActivityStore } from '../ledger/index.js';

/**
 * What the console reads back: an order's activity, the runs, the breaker's transitions (unreadable
 * parts skipped). An order's activity is what its ledger records carry (the order's and its refunds'
 * `activity` lists, written with the worker's own ledger writes: carry.ts) and its activity item
 * (what no ledger write carried), merged in time order; a delivery carried by more than one receive
 * of its message (a retry, a copy set aside) is shown once.
 */

export interface ActivityReader {
  order(source: string, orderId: string): Promise<OrderActivity>;
  runs(): Promise<RunSummary[]>;
  breaker(): Promise<BreakerTransition[]>;
}

function listOf<T>(value: unknown, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }): T[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) => {
    const parsed = schema.safeParse(v);
    return parsed.success ? [parsed.data] : [];
  });
}

export function createActivityReader(client: Pick<DynamoDBDocumentClient, 'send'>, tableName: string): ActivityReader {
  const store = createActivityStore({ client, tableName, clock: Date.now, ttlDays: 1 });
  return {
    async order(source, orderId) {
      const [item, order] = await Promise.all([store.get(orderActivityKey(source, orderId)), store.get(orderKey(source, orderId))]);
      const parsed = OrderActivity.safeParse(item ?? {});
      const own = parsed.success ? parsed.data : { entries: [], omitted: 0 };
      const refundIds = order?.refundIds instanceof Set ? [...(order.refundIds as Set<string>)] : [];
      const refunds = await Promise.all(refundIds.map((id) => store.get(refundKey(source, orderId, String(id)))));
      const carried = [order, ...refunds].flatMap((record) => listOf(record?.[ACTIVITY_FIELD], ActivityEntry));
      return { entries: merged([...carried, ...own.entries]), omitted: own.omitted };
    },
    async runs() {
      return listOf((await store.get(RUNS_KEY))?.runs, RunSummary);
    },
    async breaker() {
      return listOf((await store.get(BREAKER_KEY))?.transitions, BreakerTransition);
    },
  };
}

/** In time order (stable), each delivery once. */
function merged(entries: ActivityEntry[]): ActivityEntry[] {
  const seen = new Set<string>();
  return [...entries]
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
    .filter((e) => {
      if (e.type !== 'delivery') return true;
      const key = `${e.refundId ?? ''}#${e.deliveryId}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
