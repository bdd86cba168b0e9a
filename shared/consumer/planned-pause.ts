/**
 * A planned pause of the worker's pulling (a maintenance of the membership service announced ahead):
 * `npm run pause` / `npm run resume` (ops/pulling.ts). Pulling is switched off the same way an outage
 * switches it off (shared/consumer/pull.ts: the event source mapping, or the local queue), and this
 * record, one item of the ledger table, says it was planned, since when and until when, so the
 * recovery probe does not resume it on the first answer of a service still in maintenance
 * (recovery.ts). Intake keeps accepting: the events wait in the queue and drain at the rate budget after.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { GetCommand, PutCommand } from '../dynamodb/index.js';
import type { PullSwitch } from './pull.js';
import { lazyObject } from '../schema/index.js';

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

/** Whether pulling runs, and if not, whether the pause was planned (since, until) or an outage's. */
export type PullingStatus = { state: 'running' } | { state: 'paused'; planned: PlannedPause } | { state: 'paused'; planned: undefined };

/** Stops pulling for a planned maintenance: the record first, so the recovery probe never resumes it in between. */
export async function pausePulling(
  deps: { pull: PullSwitch; records: PlannedPauseRecords; now: () => number },
  until?: Date,
): Promise<PlannedPause> {
  const current = await deps.records.get();
  // Announced again (a new --until): the pause keeps its start.
  const pause: PlannedPause = {
    since: current?.since ?? new Date(deps.now()).toISOString(),
    ...(until ? { until: until.toISOString() } : {}),
  };
  await deps.records.set(pause);
  await deps.pull.pause();
  return pause;
}

/** Starts pulling again: the queued events drain at the rate budget, as after an outage. */
export async function resumePulling(deps: { pull: PullSwitch; records: PlannedPauseRecords }): Promise<void> {
  await deps.pull.resume();
  await deps.records.clear();
}

export async function pullingStatus(deps: { pull: PullSwitch; records: PlannedPauseRecords }): Promise<PullingStatus> {
  if (!(await deps.pull.isPaused())) return { state: 'running' };
  return { state: 'paused', planned: await deps.records.get() };
}

/**
 * For the recovery probe: whether a planned pause still holds pulling off now. One whose `until` has
 * passed is removed (the probe then resumes pulling once the service answers).
 */
export async function plannedPauseHolds(records: PlannedPauseRecords, nowMs: number): Promise<boolean> {
  const pause = await records.get();
  if (pause === undefined) return false;
  if (pause.until === undefined || Date.parse(pause.until) > nowMs) return true;
  await records.clear();
  return false;
}
