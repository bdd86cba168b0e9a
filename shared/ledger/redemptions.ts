import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEDGER_KEY_PREFIX } from './key-prefixes.js';
import * as z from 'zod';
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';
import { scanKeyPrefix } from '../dynamodb/index.js';
import { indexKeys } from './index-keys.js';
import { leaseFree, heldBy } from './conditions.js';
import { Expression } from './expression.js';
import { type Clock, createStore, type Store } from './store.js';
import { createProvisionalRecords } from './provisional.js';
import { type OrderRecord, type OrderRef, readOrder } from './records.js';
import { lazyObject, lazySchema } from '../schema/index.js';

/**
 * Redemptions (points turned into a single-use discount code), one ledger item each, keyed by source,
 * shop customer and the page's per-click request id: the same request of the same customer is one
 * redemption however often it comes, and another customer's request id names another record. Beside
 * each: `redemption-code#<code>` (an order's discount code back to its redemption) and
 * `redemption-order#<source>#<order>` (an order's redemptions, for its refunds). A redemption still
 * open (its code unused) carries the sparse index's keys (partition `redemption-open#<source>`, sort
 * the code's end) so the sweep finds those past their validity without scanning; they go when it ends.
 * Ids and amounts only: no name, no e-mail.
 */

/**
 * `reserved`: an order naming the code was created and is not paid yet (konbini, bank transfer): never
 * swept; its payment makes it `used`, its cancellation gives the points back (`returned`).
 */
export const REDEMPTION_STATES = ['pending', 'redeemed', 'reserved', 'used', 'returned', 'failed', 'refused'] as const;
export const RedemptionState = lazySchema(() => z.enum(REDEMPTION_STATES));
export type RedemptionState = z.infer<typeof RedemptionState>;

export const RedemptionRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('redemption'),
  source: z.string(),
  /** The shop customer (Shopify's logged_in_customer_id) and the member it is linked to. */
  customerId: z.string(),
  memberId: z.string(),
  /** The shop the App Proxy's signed query named (shop/redact finds the shop's redemptions by it). */
  shopDomain: z.string().optional(),
  requestId: z.string(),
  points: z.number().int().positive(),
  /** The code's amount, exact, in `currency`. */
  value: z.string(),
  currency: z.string(),
  code: z.string(),
  /** ISO: the code's end. */
  expiresAt: z.string(),
  state: RedemptionState,
  /** The deduction's call was sent: its outcome is known only from the history (marker) unless `deducted`. */
  deductionSent: z.boolean().optional(),
  deducted: z.boolean().optional(),
  /** The Shopify discount (gid) once made. */
  discountId: z.string().optional(),
  /** Epoch ms of the deduction's first and latest send (the search's reach, and the in-doubt horizon's start). */
  deductionSentAt: z.number().optional(),
  deductionLastSentAt: z.number().optional(),
  /** The giving back's call was sent / done. */
  returnSent: z.boolean().optional(),
  returnSentAt: z.number().optional(),
  returnLastSentAt: z.number().optional(),
  /** Epoch ms: a call of this redemption ended proving nothing; it is not sent again before this (shared/points/engine). */
  inDoubtUntil: z.number().optional(),
  returnedPoints: z.number().int().optional(),
  /** Why it was returned: `expired`, `refunded`, `code_refused`, `code_unavailable`. */
  returnReason: z.string().optional(),
  /** The order that used the code. */
  orderId: z.string().optional(),
  /** That order's lines and quantities (`line id → quantity`): absent when unknown (only a cancellation is then in full). */
  orderLines: z.record(z.string(), z.number().int()).optional(),
  /** What each refund of that order gave back (`refund id → line id → quantity`): one entry per refund, however often it comes. */
  refundedLines: z.record(z.string(), z.record(z.string(), z.number().int())).optional(),
  /**
   * Orders naming the code that count for nothing (`other_customer:<order>`, `second_order:<order>`), each
   * noted once: the operator's list shows them, the metric RedemptionMisuses alarms.
   */
  misuses: z.array(z.string()).optional(),
  /**
   * The claw-back: an order of the code's customer naming a code whose points were already given back
   * takes them again, once (marker `redeem-clawback`). Its sends, as the other legs', and what it took.
   */
  clawbackSent: z.boolean().optional(),
  clawbackSentAt: z.number().optional(),
  clawbackLastSentAt: z.number().optional(),
  clawedBackPoints: z.number().int().optional(),
  /** Points the claw-back could not take (the member held fewer: `clamp`; or none taken: `park`). */
  clawbackShortfall: z.number().int().optional(),
  reason: z.string().optional(),
  lastError: z.string().optional(),
  leaseOwner: z.string().optional(),
  leaseUntil: z.number().optional(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  ttl: z.number().optional(),
}));
export type RedemptionRecord = z.infer<typeof RedemptionRecord>;

const part = encodeURIComponent;
export const redemptionKey = (source: string, customerId: string, requestId: string) =>
  `${LEDGER_KEY_PREFIX.redemption}${part(source)}#${part(customerId)}#${part(requestId)}`;
/** The pointer from a code to its redemption (privacy moves it along with the record). */
export const redemptionCodeKey = (code: string) => `${LEDGER_KEY_PREFIX.redemptionCode}${part(code.toUpperCase())}`;
/** The pointer from an order to the redemptions its codes used. */
export const redemptionOrderKey = (source: string, orderId: string) =>
  `${LEDGER_KEY_PREFIX.redemptionOrder}${part(source)}#${part(orderId)}`;
const openKey = (source: string) => `redemption-open#${part(source)}`;
/** A claw-back parked (`park`: the member held too few) waits in the same sparse index, under its own partition. */
const parkedKey = (source: string) => `redemption-parked#${part(source)}`;

/** The source a redemption key names (`redemption#<source>#…`). */
const sourceOfKey = (pk: string) => decodeURIComponent(pk.slice(LEDGER_KEY_PREFIX.redemption.length).split('#')[0] ?? '');

/** What a new redemption is made with (the claim's owner holds its lease). */
export type NewRedemption = Omit<RedemptionRecord, 'pk' | 'kind' | 'state' | 'createdAt' | 'leaseOwner' | 'leaseUntil'>;

export type RedemptionStart = { created: true; record: RedemptionRecord } | { created: false; current: RedemptionRecord | undefined };

/** A final state: nothing more happens to the record. */
const FINAL: readonly RedemptionState[] = ['returned', 'failed', 'refused'];

export interface RedemptionLedger {
  readonly leaseMs: number;
  get(pk: string): Promise<RedemptionRecord | undefined>;
  /** The record, with this owner's lease, where none was; else the record as it is. */
  start(input: NewRedemption, owner: string): Promise<RedemptionStart>;
  /**
   * Takes the lease of a record that is not final and whose lease is free: the record, or undefined.
   * `final`: a final record too (a claw-back of points already given back).
   */
  claim(pk: string, owner: string, options?: { final?: boolean }): Promise<RedemptionRecord | undefined>;
  /** Notes an order naming the code that counts for nothing: true the first time this entry is noted. */
  noteMisuse(pk: string, entry: string): Promise<boolean>;
  /**
   * Writes fields under the owner's lease: `release` ends the lease, a final or used state drops the
   * record from the sweep's index. `dueAt`: when the sweep lists an open record (its code's end; sooner
   * for a deduction left in doubt, so it ends past its horizon even if nobody presses again). Undefined
   * when the lease was lost.
   */
  update(
    pk: string,
    owner: string,
    fields: Partial<RedemptionRecord>,
    options?: { release?: boolean; remove?: (keyof RedemptionRecord)[]; parked?: boolean; dueAt?: string },
  ): Promise<RedemptionRecord | undefined>;
  byCode(code: string): Promise<RedemptionRecord | undefined>;
  /** Names the order that used a redemption, for the order's refunds. */
  linkOrder(source: string, orderId: string, pk: string): Promise<void>;
  byOrder(source: string, orderId: string): Promise<RedemptionRecord[]>;
  /** Open redemptions (code not used) whose code ended at or before `untilIso` (or due sooner: `update`'s `dueAt`). */
  listDue(source: string, untilIso: string): Promise<string[]>;
  /** Redemptions whose claw-back was parked (`update` with `parked`), to be tried again by the sweep. */
  listParked(source: string): Promise<string[]>;
  /** Every redemption, or one shop customer's (a scan: an operator's command). */
  list(customerId?: string): Promise<RedemptionRecord[]>;
  /** One source customer's provisional orders (issue 53): the points page shows them. */
  pendingEarns(source: string, externalKey: string, externalId: string): Promise<OrderRecord[]>;
  /** An order record (the points page estimates provisional points from the customer's last credit). */
  order(ref: OrderRef): Promise<OrderRecord | undefined>;
}

export interface RedemptionLedgerOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  ttlDays?: number;
  leaseSeconds?: number;
}

const parse = (item: Record<string, unknown>) => RedemptionRecord.parse(item);

export function createRedemptionLedger(options: RedemptionLedgerOptions): RedemptionLedger {
  const leaseMs = (options.leaseSeconds ?? 60) * 1000;
  const store: Store = createStore({ ...options, ttlDays: options.ttlDays ?? 400, leaseMs });
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
  const get = async (pk: string) => {
    const item = await store.get(pk);
    return item ? parse(item) : undefined;
  };

  const provisional = createProvisionalRecords(store, options.client, options.tableName);
  /** The keys of the sparse index's partition `partition` whose sort key is at or before `until`. */
  const indexedUntil = (partition: string, until: string) => indexKeys(options.client, options.tableName, partition, { until });
  return {
    leaseMs,
    get,
    pendingEarns: (source, externalKey, externalId) => provisional.listPendingEarns(source, externalKey, externalId),
    order: (ref) => readOrder(store.get, ref),
    async start(input, owner) {
      const now = store.clock();
      const record: RedemptionRecord = {
        ...input,
        pk: redemptionKey(input.source, input.customerId, input.requestId),
        kind: 'redemption',
        state: 'pending',
        leaseOwner: owner,
        leaseUntil: now + leaseMs,
        createdAt: store.iso(now),
      };
      const item = { ...record, [index.partitionKey]: openKey(input.source), [index.sortKey]: input.expiresAt };
      const created = await store.create(item);
      if (created) {
        // The code's pointer: written before the code exists at Shopify, so an order using it always finds it.
        await store.create({ pk: redemptionCodeKey(input.code), kind: 'redemption-code', target: record.pk });
        return { created: true, record };
      }
      return { created: false, current: await get(record.pk) };
    },
    async claim(pk, owner, claimOptions = {}) {
      const now = store.clock();
      const e = new Expression()
        .set('leaseOwner', owner)
        .set('leaseUntil', now + leaseMs)
        .set('updatedAt', store.iso(now));
      const notFinal = claimOptions.final ? '' : ` AND NOT ${e.path('state')} IN (${FINAL.map((s) => e.value(s)).join(', ')})`;
      const condition = `attribute_exists(${e.path('pk')})${notFinal} AND ${leaseFree(e, now)}`;
      const item = await store.update(pk, e, condition);
      return item ? parse(item) : undefined;
    },
    async noteMisuse(pk, entry) {
      // A list, not a set: a record copied elsewhere (privacy's redaction) keeps it as it reads it.
      const e = new Expression().appendToList('misuses', [entry]).set('updatedAt', store.iso(store.clock()));
      const condition = `attribute_exists(${e.path('pk')}) AND NOT contains(${e.path('misuses')}, ${e.value(entry)})`;
      return (await store.update(pk, e, condition)) !== undefined;
    },
    async update(pk, owner, fields, opts = {}) {
      const now = store.clock();
      const e = new Expression().setAll({ ...fields, updatedAt: store.iso(now) });
      const removes: string[] = [...(opts.remove ?? [])];
      if (opts.release) removes.push('leaseOwner', 'leaseUntil');
      else e.set('leaseUntil', now + leaseMs);
      const state = fields.state;
      // Out of the sweep's index: used, reserved by an order, or final; a parked claw-back moves to its own partition.
      if (state !== undefined && state !== 'pending' && state !== 'redeemed') {
        if (opts.parked) e.set(index.partitionKey, parkedKey(fields.source ?? sourceOfKey(pk))).set(index.sortKey, store.iso(now));
        else removes.push(index.partitionKey, index.sortKey);
        e.setAll(store.finished(undefined, now));
      } else if (opts.dueAt !== undefined) e.set(index.sortKey, opts.dueAt);
      if (removes.length > 0) e.remove(...removes);
      const item = await store.update(pk, e, heldBy(e, owner));
      return item ? parse(item) : undefined;
    },
    async byCode(code) {
      const pointer = await store.get(redemptionCodeKey(code));
      return typeof pointer?.target === 'string' ? get(pointer.target) : undefined;
    },
    async linkOrder(source, orderId, pk) {
      const e = new Expression().set('kind', 'redemption-order').addToSet('targets', [pk]);
      await store.update(
        redemptionOrderKey(source, orderId),
        e,
        `attribute_not_exists(${e.path('pk')}) OR attribute_exists(${e.path('pk')})`,
      );
    },
    async byOrder(source, orderId) {
      const pointer = await store.get(redemptionOrderKey(source, orderId));
      const targets = pointer?.targets instanceof Set ? [...pointer.targets] : Array.isArray(pointer?.targets) ? pointer.targets : [];
      const records = await Promise.all(targets.map((t) => get(String(t))));
      return records.filter((r): r is RedemptionRecord => r !== undefined);
    },
    listDue: (source, untilIso) => indexedUntil(openKey(source), untilIso),
    // Every parked one: the sort key is when it was parked, never in the future.
    listParked: (source) => indexedUntil(parkedKey(source), '9999'),
    async list(customerId) {
      const out: RedemptionRecord[] = [];
      for await (const item of scanKeyPrefix(options.client, options.tableName, 'redemption#', { consistentRead: true })) {
        const parsed = RedemptionRecord.safeParse(item);
        if (parsed.success && (customerId === undefined || parsed.data.customerId === customerId)) out.push(parsed.data);
      }
      return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
  };
}
