import { capText } from '../text/index.js';
import { claimable, heldBy } from './conditions.js';
import { Expression } from './expression.js';
import { type RefundOutcome, RefundRecord, type RefundRef, readRefund, refundKey } from './records.js';
import type { Claim, Store } from './store.js';

export interface RefundResult {
  state: 'done' | 'parked';
  outcome: RefundOutcome;
  reason?: string;
  customerId?: string;
  pointsDebited?: number;
  debitTarget?: number;
  shortfall?: number;
  reconciled?: boolean;
}

/** The refund record: dedup and lease of one refund, its wait/park state, its event and outcome. */
export interface RefundRecords {
  getRefund(ref: RefundRef): Promise<RefundRecord | undefined>;
  /** Dedup and lease for one refund: absent, or not done with a free lease. */
  claimRefund(ref: RefundRef, owner: string, eventJson: string): Promise<Claim<RefundRecord>>;
  finishRefund(ref: RefundRef, owner: string, result: RefundResult): Promise<RefundRecord | undefined>;
  releaseRefund(ref: RefundRef, owner: string, opts: { lastError: string; state: 'pending' | 'waiting' }): Promise<boolean>;
  /**
   * The audit's correction of a done refund's debit, once its marker was found twice and the entry that
   * stands is not the one booked (`from`): debited `to`, the shortfall and outcome from its target.
   * Conditional on the record still saying `from`; undefined when it does not (corrected before).
   */
  correctRefundDebit(ref: RefundRef, fix: DebitCorrection): Promise<RefundRecord | undefined>;
  /**
   * The audit's settlement of a clamp's shortfall (`booked`, as read): `taken` points taken later. What
   * is left stays the shortfall; none left, the refund reads `debited`. Once only: false when settled before.
   */
  settleRefundShortfall(ref: RefundRef, settlement: { booked: number; taken: number }): Promise<boolean>;
}

/** A booked debit the audit corrects: what was booked, what stands now, the refund's target. */
export interface DebitCorrection {
  from: number;
  to: number;
  target: number;
}

const parseRefund = (item: Record<string, unknown> | undefined) => (item ? RefundRecord.parse(item) : undefined);
const keyOf = (ref: RefundRef) => refundKey(ref.source, ref.orderId, ref.refundId);

export function createRefundRecords(store: Store): RefundRecords {
  const { clock, leaseMs, iso } = store;
  return {
    getRefund: (ref) => readRefund(store.get, ref),

    async claimRefund(ref, owner, eventJson) {
      const now = clock();
      const e = new Expression()
        .set('kind', 'refund')
        .set('source', ref.source)
        .set('orderId', ref.orderId)
        .set('refundId', ref.refundId)
        // A claim keeps the state it finds (waiting, parked): only a finish or a release changes it, so a
        // duplicate delivery that dies right after claiming a parked refund leaves it parked, not pending.
        .setIfAbsent('state', 'pending')
        .set('leaseOwner', owner)
        .set('leaseUntil', now + leaseMs)
        .increment('attempts')
        .setIfAbsent('event', eventJson)
        .setIfAbsent('firstSeenAt', iso(now))
        .setIfAbsent('createdAt', iso(now))
        .set('updatedAt', iso(now))
        .remove('ttl');
      return store.claim(keyOf(ref), e, claimable(e, now), RefundRecord.parse, { ref });
    },

    async finishRefund(ref, owner, result) {
      const now = clock();
      const e = new Expression()
        .setFrom(result, ['state', 'outcome', 'customerId', 'pointsDebited', 'debitTarget', 'shortfall', 'reconciled'])
        .set('updatedAt', iso(now))
        .setAll(store.finished(result.reason, now))
        .remove('leaseOwner', 'leaseUntil', 'lastError');
      const note = { ref, finish: { outcome: result.outcome, reason: result.reason } };
      return parseRefund(await store.update(keyOf(ref), e, heldBy(e, owner), note));
    },

    async releaseRefund(ref, owner, opts) {
      const e = new Expression()
        .set('state', opts.state)
        .set('lastError', capText(opts.lastError))
        .set('updatedAt', iso(clock()))
        .remove('leaseOwner', 'leaseUntil');
      return (await store.update(keyOf(ref), e, heldBy(e, owner), { ref })) !== undefined;
    },

    async correctRefundDebit(ref, fix) {
      const shortfall = Math.max(0, fix.target - fix.to);
      const e = new Expression()
        .set('pointsDebited', fix.to)
        .set('shortfall', shortfall)
        .set('outcome', shortfall > 0 ? 'insufficient_points' : 'debited')
        .set('updatedAt', iso(clock()));
      const condition = `${e.path('state')} = ${e.value('done')} AND ${e.path('pointsDebited')} = ${e.value(fix.from)}`;
      return parseRefund(await store.update(keyOf(ref), e, condition, { ref }));
    },

    async settleRefundShortfall(ref, { booked, taken }) {
      const left = Math.max(0, booked - taken);
      const e = new Expression()
        .set('shortfallSettled', taken)
        .set('shortfall', left)
        .set('outcome', left > 0 ? 'insufficient_points' : 'debited')
        .set('updatedAt', iso(clock()));
      const condition = `${e.path('state')} = ${e.value('done')} AND ${e.path('shortfall')} = ${e.value(booked)} AND attribute_not_exists(${e.path('shortfallSettled')})`;
      return (await store.update(keyOf(ref), e, condition, { ref })) !== undefined;
    },
  };
}
