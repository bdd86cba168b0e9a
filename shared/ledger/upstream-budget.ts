import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, isConditionFailure, UpdateCommand } from '../dynamodb/index.js';
import { LEDGER_KEY_PREFIX } from './key-prefixes.js';

/**
 * The upstream budget's minute counters (shared/openapi/shared-budget.ts): one item of the ledger table
 * per Open API endpoint per clock minute, `budget#<endpoint>#<epoch minute>`, holding how many calls
 * containers have leased in that minute. Increments are conditional single-item updates (no
 * transactions: dynalite has the same). They name nobody; TTL removes them an hour after their minute.
 */

/** The key prefix of the counters; the IAM grant of a function that only draws from the budget is limited to it. */
export const BUDGET_KEY_PREFIX = LEDGER_KEY_PREFIX.budget;

export const budgetKey = (endpoint: string, minute: number) => `${BUDGET_KEY_PREFIX}${endpoint}#${minute}`;

/** Rounds of read-then-lease when a full slice no longer fits (others lease at the same moment). */
const ROUNDS = 3;

type Table = { client: Pick<DynamoDBDocumentClient, 'send'>; tableName: string };

/**
 * The store of the shared budget: a lease adds `want` only while the counter stays within `cap`. When
 * a whole slice no longer fits, it reads the counter and leases what is left, so the minute is spent
 * to the last call and never past it.
 */
export function ledgerBudgetStore(table: Table) {
  const add = async (Key: { pk: string }, n: number, cap: number, ttl: number): Promise<boolean> => {
    try {
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key,
          UpdateExpression: 'SET #kind = :kind, #ttl = :ttl ADD #used :n',
          ConditionExpression: 'attribute_not_exists(#used) OR #used <= :room',
          ExpressionAttributeNames: { '#kind': 'kind', '#ttl': 'ttl', '#used': 'used' },
          ExpressionAttributeValues: { ':kind': 'budget', ':ttl': ttl, ':n': n, ':room': cap - n },
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  };
  const used = async (Key: { pk: string }): Promise<number> => {
    const item = (await table.client.send(new GetCommand({ TableName: table.tableName, Key, ConsistentRead: true }))).Item;
    return typeof item?.used === 'number' ? item.used : 0;
  };
  return {
    async lease(endpoint: string, minute: number, want: number, cap: number): Promise<number> {
      const Key = { pk: budgetKey(endpoint, minute) };
      const ttl = (minute + 61) * 60;
      let n = Math.min(want, cap);
      for (let round = 0; n > 0 && round < ROUNDS; round++) {
        if (await add(Key, n, cap, ttl)) return n;
        n = Math.min(n, cap - (await used(Key)));
      }
      return 0;
    },
  };
}
