import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { scanKeyPrefix } from '../dynamodb/index.js';
import { lazyObject } from '../schema/index.js';
import { capText } from '../text/index.js';
import { heldBy, leaseFree } from './conditions.js';
import { Expression } from './expression.js';
import { DOUBT_FIELDS, type InDoubt, inDoubtFields, operationFields } from './records.js';
import { type Claim, type Clock, createStore } from './store.js';
import { LEDGER_KEY_PREFIX } from './key-prefixes.js';

/**
 * The audit's reversals (issue 50 item 6), one item per extra history entry: a marker of ours found more
 * than once in a member's history (a request that landed after every horizon) has each extra entry
 * reversed exactly once, through the same claim -> search -> act -> record as every points call. Keyed by
 * source, member and the extra entry's history id; member ids and points only, no shop customer.
 */

export const REVERSAL_OUTCOMES = ['reversed', 'insufficient_points'] as const;

export const ReversalRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('reversal'),
  source: z.string(),
  /** The member whose history holds the extra entry (and gets the reversal). */
  memberId: z.string(),
  /** The extra entry's history id, and its points as the history shows them. */
  entryId: z.string(),
  entryPoint: z.number().int(),
  /** The marker found more than once, and the reversal's own. */
  duplicatedMarker: z.string(),
  marker: z.string(),
  /** The order (and refund) the duplicated marker is of, when it is an order's or a refund's. */
  orderId: z.string().optional(),
  refundId: z.string().optional(),
  state: z.enum(['pending', 'done']),
  outcome: z.enum(REVERSAL_OUTCOMES).optional(),
  /** Points the reversal moved (its entry's size) and what it could not take (the insufficient-points policy). */
  pointsReversed: z.number().int().optional(),
  shortfall: z.number().int().optional(),
  /** Found in the history rather than answered. */
  reconciled: z.boolean().optional(),
  reason: z.string().optional(),
  lastError: z.string().optional(),
  attempts: z.number().int().optional(),
  ...operationFields(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  ttl: z.number().optional(),
}));
export type ReversalRecord = z.infer<typeof ReversalRecord>;

const part = encodeURIComponent;
export const REVERSAL_KEY_PREFIX = LEDGER_KEY_PREFIX.reversal;
export const reversalKey = (source: string, memberId: string, entryId: string) =>
  `${REVERSAL_KEY_PREFIX}${part(source)}#${part(memberId)}#${part(entryId)}`;

/** What a reversal is claimed with the first time. */
export type NewReversal = Pick<
  ReversalRecord,
  'source' | 'memberId' | 'entryId' | 'entryPoint' | 'duplicatedMarker' | 'marker' | 'orderId' | 'refundId'
>;

/** How a reversal ends: what it moved and what it could not. */
export interface ReversalEnd {
  outcome: (typeof REVERSAL_OUTCOMES)[number];
  pointsReversed: number;
  shortfall: number;
  reconciled: boolean;
  reason?: string | undefined;
}

export interface ReversalLedger {
  readonly leaseMs: number;
  get(source: string, memberId: string, entryId: string): Promise<ReversalRecord | undefined>;
  /** Takes the lease of a reversal not done (made where none is): the record as it was before, or as it is. */
  claim(input: NewReversal, owner: string): Promise<Claim<ReversalRecord>>;
  /** Done, under the owner's lease (its doubt cleared). False when the lease was lost. */
  finish(pk: string, owner: string, end: ReversalEnd): Promise<boolean>;
  /** Lets go of the lease; `inDoubt`: its call may still land, not sent again before `until`. */
  release(pk: string, owner: string, lastError: string, inDoubt?: InDoubt): Promise<boolean>;
  /** Every reversal, or those of one order's markers (a scan: operators' reads). */
  list(filter?: { source: string; orderId: string }): Promise<ReversalRecord[]>;
}

export interface ReversalLedgerOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  ttlDays?: number;
  leaseSeconds?: number;
}

const parse = (item: Record<string, unknown>) => ReversalRecord.parse(item);

export function createReversalLedger(options: ReversalLedgerOptions): ReversalLedger {
  const leaseMs = (options.leaseSeconds ?? 120) * 1000;
  const store = createStore({ ...options, ttlDays: options.ttlDays ?? 400, leaseMs });

  return {
    leaseMs,
    async get(source, memberId, entryId) {
      const item = await store.get(reversalKey(source, memberId, entryId));
      return item ? parse(item) : undefined;
    },
    async claim(input, owner) {
      const now = store.clock();
      const pk = reversalKey(input.source, input.memberId, input.entryId);
      const record: ReversalRecord = {
        ...input,
        pk,
        kind: 'reversal',
        state: 'pending',
        attempts: 1,
        leaseOwner: owner,
        leaseUntil: now + leaseMs,
        createdAt: store.iso(now),
      };
      if (await store.create(record)) return { ok: true, previous: undefined };
      const e = new Expression()
        .set('leaseOwner', owner)
        .set('leaseUntil', now + leaseMs)
        .set('updatedAt', store.iso(now))
        .increment('attempts');
      const condition = `${e.path('state')} = ${e.value('pending')} AND ${leaseFree(e, now)}`;
      return store.claim(pk, e, condition, parse);
    },
    async finish(pk, owner, end) {
      const now = store.clock();
      const e = new Expression()
        .set('state', 'done')
        .set('outcome', end.outcome)
        .set('pointsReversed', end.pointsReversed)
        .set('shortfall', end.shortfall)
        .set('reconciled', end.reconciled)
        .set('updatedAt', store.iso(now))
        .setAll(store.finished(end.reason, now))
        .remove('leaseOwner', 'leaseUntil', 'lastError', ...DOUBT_FIELDS);
      return (await store.update(pk, e, heldBy(e, owner))) !== undefined;
    },
    async release(pk, owner, lastError, inDoubt) {
      const e = new Expression()
        .set('lastError', capText(lastError))
        .set('updatedAt', store.iso(store.clock()))
        .remove('leaseOwner', 'leaseUntil');
      if (inDoubt) e.setAll(inDoubtFields(inDoubt));
      return (await store.update(pk, e, heldBy(e, owner))) !== undefined;
    },
    async list(filter) {
      const out: ReversalRecord[] = [];
      for await (const item of scanKeyPrefix(options.client, options.tableName, REVERSAL_KEY_PREFIX, { consistentRead: true })) {
        const parsed = ReversalRecord.safeParse(item);
        if (!parsed.success) continue;
        if (filter && (parsed.data.source !== filter.source || parsed.data.orderId !== filter.orderId)) continue;
        out.push(parsed.data);
      }
      return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
  };
}
