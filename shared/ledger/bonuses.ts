import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { lazyObject } from '../schema/index.js';
import { capText } from '../text/index.js';
import { heldBy, leaseFree } from './conditions.js';
import { Expression } from './expression.js';
import { DOUBT_FIELDS, type InDoubt, inDoubtFields, type OrderRef, operationFields } from './records.js';
import type { Claim, Store } from './store.js';
import { LEDGER_KEY_PREFIX } from './key-prefixes.js';

/**
 * A campaign's bonus on one order (issue 53): its own record, `bonus#<source>#<order>#<campaign>`, not a
 * booking on the order. The bonus is a points call of its own after the base credit, and its claw-backs
 * follow the order's refunds: a record of its own lets them take their own lease, so the purchase's and
 * the refunds' protocol on the order record (its lease, `refundsInDoubt`, the book) stay as they are, and
 * a purchase without campaigns writes nothing more. The order lists its campaigns (`campaigns`), so the
 * refunds find these records by key.
 */

/** One refund's share of the bonus taken back (its own marker: `lp1:<source>:bonus-back:<order>:<campaign>:<refund>`). */
export const BonusClawback = lazyObject(z.object, () => ({
  /** What it should take: floor(bonus × refundedAfter / eligible) less the earlier claw-backs' targets. */
  target: z.number().int().nonnegative(),
  /** What it took (less than target only when the member held too few points). */
  taken: z.number().int().nonnegative(),
  reconciled: z.boolean().optional(),
  at: z.string(),
}));
export type BonusClawback = z.infer<typeof BonusClawback>;

export const BonusRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('bonus'),
  source: z.string(),
  orderId: z.string(),
  campaignId: z.string(),
  /** The bonus's marker: `lp1:<source>:bonus:<order>:<campaign>`. */
  marker: z.string(),
  /** `pending` until the bonus is granted (or found to be 0); its claw-backs are booked on it after. */
  state: z.enum(['pending', 'done']),
  memberId: z.string().optional(),
  /** The base credit the bonus was computed from (exact: the history entry of the order's marker). */
  base: z.number().int().optional(),
  /** The bonus granted. */
  points: z.number().int().nonnegative().optional(),
  reconciled: z.boolean().optional(),
  clawbacks: z.record(z.string(), BonusClawback).default({}),
  /** Sums over `clawbacks`: what the refunds should have taken back, and what they took. */
  clawbackTarget: z.number().int().nonnegative().default(0),
  clawedBack: z.number().int().nonnegative().default(0),
  ...operationFields(),
  attempts: z.number().int().optional(),
  lastError: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  reason: z.string().optional(),
  ttl: z.number().optional(),
}));
export type BonusRecord = z.infer<typeof BonusRecord>;

const part = encodeURIComponent;
export const BONUS_KEY_PREFIX = LEDGER_KEY_PREFIX.bonus;
export const bonusKey = (source: string, orderId: string, campaignId: string) =>
  `${BONUS_KEY_PREFIX}${part(source)}#${part(orderId)}#${part(campaignId)}`;

export interface BonusRef extends OrderRef {
  campaignId: string;
}

/** How a bonus grant ends: its base and points (0: nothing to grant, no call made). */
export interface BonusGrant {
  memberId: string;
  base: number;
  points: number;
  reconciled: boolean;
}

export interface BonusRecords {
  getBonus(ref: BonusRef): Promise<BonusRecord | undefined>;
  /** The bonus record's lease (made where none is; pending or done, its lease free): the record before, or as it is. */
  claimBonus(ref: BonusRef, marker: string, owner: string): Promise<Claim<BonusRecord>>;
  /** The bonus granted (or 0), under the owner's lease, which it keeps: claw-backs may follow in the same attempt. */
  grantBonus(ref: BonusRef, owner: string, grant: BonusGrant): Promise<BonusRecord | undefined>;
  /** One refund's claw-back, once (conditional on the refund id being absent), under the owner's lease. */
  bookClawback(ref: BonusRef, owner: string, refundId: string, clawback: BonusClawback): Promise<BonusRecord | undefined>;
  /** Lets go of the lease; `inDoubt`: its last call may still land, not sent again before `until`. */
  releaseBonus(ref: BonusRef, owner: string, lastError?: string, inDoubt?: InDoubt): Promise<boolean>;
}

const parse = (item: Record<string, unknown>) => BonusRecord.parse(item);
const keyOf = (ref: BonusRef) => bonusKey(ref.source, ref.orderId, ref.campaignId);
const parsed = (item: Record<string, unknown> | undefined) => (item ? parse(item) : undefined);

export function createBonusRecords(store: Store): BonusRecords {
  const { clock, leaseMs, iso } = store;
  return {
    async getBonus(ref) {
      return parsed(await store.get(keyOf(ref)));
    },
    async claimBonus(ref, marker, owner) {
      const now = clock();
      const record: BonusRecord = {
        pk: keyOf(ref),
        kind: 'bonus',
        source: ref.source,
        orderId: ref.orderId,
        campaignId: ref.campaignId,
        marker,
        state: 'pending',
        clawbacks: {},
        clawbackTarget: 0,
        clawedBack: 0,
        attempts: 1,
        leaseOwner: owner,
        leaseUntil: now + leaseMs,
        createdAt: iso(now),
      };
      const note = { ref };
      if (await store.create(record, note)) return { ok: true, previous: undefined };
      const e = new Expression()
        .set('leaseOwner', owner)
        .set('leaseUntil', now + leaseMs)
        .set('updatedAt', iso(now))
        .increment('attempts');
      return store.claim(keyOf(ref), e, leaseFree(e, now), parse, note);
    },
    async grantBonus(ref, owner, grant) {
      const now = clock();
      const e = new Expression()
        .set('state', 'done')
        .set('memberId', grant.memberId)
        .set('base', grant.base)
        .set('points', grant.points)
        .set('reconciled', grant.reconciled)
        .set('updatedAt', iso(now))
        .setAll(store.finished(undefined, now))
        .remove('lastError', ...DOUBT_FIELDS);
      return parsed(await store.update(keyOf(ref), e, heldBy(e, owner), { ref }));
    },
    async bookClawback(ref, owner, refundId, clawback) {
      const e = new Expression()
        .set(['clawbacks', refundId], clawback)
        .increment('clawbackTarget', clawback.target)
        .increment('clawedBack', clawback.taken)
        .set('updatedAt', iso(clock()))
        .remove('lastError', ...DOUBT_FIELDS);
      const condition = `${heldBy(e, owner)} AND attribute_not_exists(${e.path(['clawbacks', refundId])})`;
      return parsed(await store.update(keyOf(ref), e, condition, { ref }));
    },
    async releaseBonus(ref, owner, lastError, inDoubt) {
      const e = new Expression().set('updatedAt', iso(clock())).remove('leaseOwner', 'leaseUntil');
      if (lastError !== undefined) e.set('lastError', capText(lastError));
      if (inDoubt) e.setAll(inDoubtFields(inDoubt));
      return (await store.update(keyOf(ref), e, heldBy(e, owner), { ref })) !== undefined;
    },
  };
}
