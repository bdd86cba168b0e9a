import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { capText } from '../text/index.js';
import type { Expression } from './expression.js';
import { GetCommand, isConditionFailure, PutCommand, UpdateCommand } from '../dynamodb/index.js';
import { DAY_MS } from '../time/index.js';

/** Epoch milliseconds now. Injected so tests move leases without sleeping. */
export type Clock = () => number;

/**
 * Which order (and refund) a write is for, and for the write that ends an attempt with an outcome,
 * that outcome: what the activity record (shared/activity) files with it.
 */
export interface WriteNote {
  ref: { source: string; orderId: string; refundId?: string };
  finish?: { outcome: string; reason?: string | undefined };
}

/**
 * Observations that ride on the ledger's own writes instead of costing writes of their own (the
 * activity record: the delivery, the calls, the receive): `take` hands the entries for a write, kept
 * in the record's `activity` list; `settle` says whether that write happened. Never read to decide.
 */
export interface LedgerActivity {
  take(note: WriteNote): readonly unknown[];
  settle(note: WriteNote, written: boolean): void;
}

/** The attribute of a ledger record that holds the activity carried by its writes. */
export const ACTIVITY_FIELD = 'activity';

/** A claim either got the lease (with the record as it was before) or did not (with the record as it is). */
export type Claim<T> = { ok: true; previous: T | undefined } | { ok: false; current: T | undefined };

type Item = Record<string, unknown>;

/**
 * The table as the ledger's records use it: consistent reads and conditional writes of one item by
 * its key, plus the clock, lease length and retention every write stamps.
 */
export interface Store {
  readonly clock: Clock;
  readonly leaseMs: number;
  get(pk: string): Promise<Item | undefined>;
  /** One conditional UpdateItem: the item as it is after, or undefined when the condition failed. */
  update(pk: string, e: Expression, condition: string, note?: WriteNote): Promise<Item | undefined>;
  /**
   * Writes a whole item only where none is (PutItem on attribute_not_exists): undefined when one is
   * there, so nothing can be erased by it.
   */
  create<T extends Item & { pk: string }>(item: T, note?: WriteNote): Promise<T | undefined>;
  /** A conditional update that takes a lease: the record before it, or (failed) the record as it is. */
  claim<T>(pk: string, e: Expression, condition: string, parse: (item: Item) => T, note?: WriteNote): Promise<Claim<T>>;
  /** What stamps a finished record: why (capped), when, and the TTL from then (not `updatedAt`: the caller's). */
  finished(reason: string | undefined, nowMs: number): { reason?: string; finishedAt: string; ttl: number };
  /** ISO time of an epoch ms. */
  iso(ms: number): string;
  /** The TTL (epoch seconds) of a record written at `ms`. */
  ttlFrom(ms: number): number;
}

export interface StoreOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  ttlDays: number;
  leaseMs: number;
  /** The activity record's entries, carried by these writes (none without it). */
  activity?: LedgerActivity;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function createStore({ client, tableName, clock, ttlDays, leaseMs, activity }: StoreOptions): Store {
  /** Runs a write with the activity it carries; `written` tells from its result whether it happened. */
  async function carrying<T>(note: WriteNote | undefined, write: (entries: readonly unknown[]) => Promise<T>, written: (r: T) => boolean) {
    const entries = note && activity ? activity.take(note) : [];
    let result: T;
    try {
      result = await write(entries);
    } catch (e) {
      if (note) activity?.settle(note, false);
      throw e;
    }
    if (note) activity?.settle(note, written(result));
    return result;
  }

  const ttlFrom = (ms: number) => Math.floor((ms + ttlDays * DAY_MS) / 1000);
  async function get(pk: string): Promise<Item | undefined> {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk }, ConsistentRead: true }));
    return out.Item;
  }

  /** A PutItem where no item is: the item as written, or undefined when one was there. */
  async function create<T extends Item>(item: T, note?: WriteNote): Promise<T | undefined> {
    return carrying(
      note,
      async (entries) => {
        const written = entries.length > 0 ? { ...item, [ACTIVITY_FIELD]: entries } : item;
        try {
          await client.send(new PutCommand({ TableName: tableName, Item: written, ConditionExpression: 'attribute_not_exists(pk)' }));
          return item;
        } catch (err) {
          if (isConditionFailure(err)) return undefined;
          throw err;
        }
      },
      (r) => r !== undefined,
    );
  }

  /** undefined when the condition failed; otherwise the item's attributes as `returnValues` asks. */
  async function conditionalUpdate(
    pk: string,
    e: Expression,
    condition: string,
    returnValues: 'ALL_OLD' | 'ALL_NEW',
  ): Promise<{ attributes: Item | undefined } | undefined> {
    try {
      const out = await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk },
          UpdateExpression: e.update(),
          ConditionExpression: condition,
          ExpressionAttributeNames: e.names,
          ExpressionAttributeValues: Object.keys(e.values).length ? e.values : undefined,
          ReturnValues: returnValues,
        }),
      );
      return { attributes: out.Attributes };
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }

  return {
    clock,
    leaseMs,
    get,
    create,
    async update(pk, e, condition, note) {
      const out = await carrying(
        note,
        (entries) => conditionalUpdate(pk, e.appendToList(ACTIVITY_FIELD, entries), condition, 'ALL_NEW'),
        (r) => r !== undefined,
      );
      return out?.attributes;
    },
    async claim(pk, e, condition, parse, note) {
      const out = await carrying(
        note,
        (entries) => conditionalUpdate(pk, e.appendToList(ACTIVITY_FIELD, entries), condition, 'ALL_OLD'),
        (r) => r !== undefined,
      );
      if (out) return { ok: true, previous: out.attributes ? parse(out.attributes) : undefined };
      const current = await get(pk);
      return { ok: false, current: current ? parse(current) : undefined };
    },
    finished(reason, nowMs) {
      return { ...(reason === undefined ? {} : { reason: capText(reason) }), finishedAt: iso(nowMs), ttl: ttlFrom(nowMs) };
    },
    iso,
    ttlFrom,
  };
}
