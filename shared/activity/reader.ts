import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BreakerTransition, OrderActivity, RunSummary } from './entries.js';
import { BREAKER_KEY, orderActivityKey, RUNS_KEY } from './keys.js';
import { createActivityStore } from './store.js';

/** What the console reads back: an order's activity, the runs, the breaker's transitions (unreadable parts skipped). */

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
      const item = await store.get(orderActivityKey(source, orderId));
      const parsed = OrderActivity.safeParse(item ?? {});
      return parsed.success ? parsed.data : { entries: [], omitted: 0 };
    },
    async runs() {
      return listOf((await store.get(RUNS_KEY))?.runs, RunSummary);
    },
    async breaker() {
      return listOf((await store.get(BREAKER_KEY))?.transitions, BreakerTransition);
    },
  };
}
