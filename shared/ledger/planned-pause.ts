import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { GetCommand, PutCommand } from '../dynamodb/index.js';
import { lazyObject } from '../schema/index.js';

/**
 * The planned-pause record: one item of the ledger table saying pulling was paused for an announced
 * maintenance, since when and until when (what it is for: shared/consumer/planned-pause.ts). It names
 * nobody: a privacy redaction has nothing to take from it.
 */

/** The ledger table's key of the planned-pause record (not an order, refund or customer: scans by kind skip it). */
export const PLANNED_PAUSE_KEY = 'control#pulling';

export const PlannedPause = lazyObject(z.object, () => ({
  /** ISO time the pause was announced. */
  since: z.string(),
  /** ISO time after which the recovery probe resumes pulling (once the service answers); absent: until `npm run resume`. */
  until: z.string().optional(),
}));
export type PlannedPause = z.infer<typeof PlannedPause>;

export interface PlannedPauseRecords {
  get(): Promise<PlannedPause | undefined>;
  set(pause: PlannedPause): Promise<void>;
  clear(): Promise<void>;
}

export function ledgerPlannedPause(table: { client: Pick<DynamoDBDocumentClient, 'send'>; tableName: string }): PlannedPauseRecords {
  const Key = { pk: PLANNED_PAUSE_KEY };
  return {
    async get() {
      const item = (await table.client.send(new GetCommand({ TableName: table.tableName, Key, ConsistentRead: true }))).Item;
      const parsed = PlannedPause.safeParse(item);
      return parsed.success && item?.resumed !== true ? parsed.data : undefined;
    },
    async set(pause) {
      await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...Key, kind: 'control', ...pause } }));
    },
    // Overwritten, not deleted: the worker's role may put and update ledger items but delete none of them.
    async clear() {
      await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...Key, kind: 'control', resumed: true } }));
    },
  };
}
