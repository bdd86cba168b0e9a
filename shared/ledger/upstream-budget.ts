import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, isConditionFailure, UpdateCommand } from '../dynamodb/index.js';
import type { OwnCount } from '../openapi/index.js';
import { LEDGER_KEY_PREFIX } from './key-prefixes.js';

/**
 * The upstream budget's minute counters (shared/openapi/shared-budget.ts): one item of the ledger table
 * per Open API endpoint per clock minute, `budget#<endpoint>#<epoch minute>`, holding how many calls
 * containers have leased in that minute (`used`), and of those how many each class of caller took
 * (`bulk`, `storefront`: the App Proxy's are counted apart so that its reserve is what it has not used). Increments are conditional single-item updates (no
 * transactions: dynalite has the same). They name nobody; TTL removes them an hour after their minute.
 */

/** The key prefix of the counters; the IAM grant of a function that only draws from the budget is limited to it. */
export const BUDGET_KEY_PREFIX = LEDGER_KEY_PREFIX.budget;

export const budgetKey = (endpoint: string, minute: number) => `${BUDGET_KEY_PREFIX}${endpoint}#${minute}`;

/** Rounds of read-then-lease when a full slice no longer fits (others lease at the same moment). */
const ROUNDS = 3;

type Table = { client: Pick<DynamoDBDocumentClient, 'send'>; tableName: string };

/**
 * The store of the shared budget: a lease adds `want` only while the counter stays within `cap` and
 * the class's own count within its own cap. When a whole slice no longer fits, it reads the counts
 * and leases what is left, so the minute is spent to the last call and never past it.
 */
export function ledgerBudgetStore(table: Table) {
  const add = async (Key: { pk: string }, n: number, cap: number, own: OwnCount | undefined, ttl: number): Promise<boolean> => {
    const names: Record<string, string> = { '#kind': 'kind', '#ttl': 'ttl', '#used': 'used' };
    const values: Record<string, unknown> = { ':kind': 'budget', ':ttl': ttl, ':n': n, ':room': cap - n };
    let update = 'SET #kind = :kind, #ttl = :ttl ADD #used :n';
    let condition = '(attribute_not_exists(#used) OR #used <= :room)';
    if (own) {
      names['#own'] = own.class;
      values[':ownRoom'] = own.cap - n;
      update += ', #own :n';
      condition += ' AND (attribute_not_exists(#own) OR #own <= :ownRoom)';
    }
    try {
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key,
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  };
  /** What is left under both caps. */
  const room = async (Key: { pk: string }, cap: number, own: OwnCount | undefined): Promise<number> => {
    const item = (await table.client.send(new GetCommand({ TableName: table.tableName, Key, ConsistentRead: true }))).Item;
    const count = (name: string) => (typeof item?.[name] === 'number' ? (item[name] as number) : 0);
    return Math.min(cap - count('used'), own ? own.cap - count(own.class) : Number.POSITIVE_INFINITY);
  };
  return {
    async lease(endpoint: string, minute: number, want: number, cap: number, own?: OwnCount): Promise<number> {
      const Key = { pk: budgetKey(endpoint, minute) };
      const ttl = (minute + 61) * 60;
      let n = Math.min(want, cap, own?.cap ?? cap);
      for (let round = 0; n > 0 && round < ROUNDS; round++) {
        if (await add(Key, n, cap, own, ttl)) return n;
        n = Math.min(n, await room(Key, cap, own));
      }
      return 0;
    },
  };
}
