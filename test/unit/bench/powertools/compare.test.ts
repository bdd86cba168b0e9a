import { beforeAll, describe, expect, it } from 'vitest';
import { type ComparisonFigures, runComparison } from '../../../../bench/powertools/compare.js';
import { BUSY_ENTRIES, FAULT_KINDS, KINDS_OF, planEvents } from '../../../../bench/powertools/plan.js';

// A tiny seeded run: one purchase and one refund of each fault kind, through the three sides against
// real servers (emulator over HTTP, dynalite behind the counting proxy). Figures only; nothing here is about time.
describe('the side-by-side run with Powertools idempotency', () => {
  let figures: ComparisonFigures;
  beforeAll(async () => {
    figures = await runComparison({ purchases: FAULT_KINDS.length, seed: 3 });
  }, 240_000);

  it('gives every side the same seeded purchases and refunds, every fault kind of each type at least once', () => {
    const again = planEvents(FAULT_KINDS.length, 3).map((e) => [e.type, e.orderId, e.kind]);
    expect(figures.plan.map((e) => [e.type, e.orderId, e.kind])).toEqual(again);
    for (const type of ['purchase', 'refund'] as const) {
      expect(new Set(figures.plan.filter((e) => e.type === type).map((e) => e.kind))).toEqual(new Set(KINDS_OF[type]));
    }
    expect(figures.faultMix.refund).toEqual(Object.fromEntries(FAULT_KINDS.map((k) => [k, 1])));
    for (const side of [figures.bridge, figures.powertools, figures.powertoolsHistory]) {
      expect([side.events, side.purchases, side.refunds]).toEqual([2 * FAULT_KINDS.length, FAULT_KINDS.length, FAULT_KINDS.length]);
      expect(Object.values(side.byKind.refund).map((k) => k.events)).toEqual(FAULT_KINDS.map(() => 1));
    }
  });

  it('finds no credit or debit doubled, lost or of a wrong amount by the bridge', () => {
    const { doubledCredits, lostCredits, doubledDebits, lostDebits, wrongAmounts } = figures.bridge;
    expect({ doubledCredits, lostCredits, doubledDebits, lostDebits, wrongAmounts }).toEqual({
      doubledCredits: 0,
      lostCredits: 0,
      doubledDebits: 0,
      lostDebits: 0,
      wrongAmounts: 0,
    });
  });

  it('counts the second credit and the second debit Powertools grants when the answer is lost after the commit', () => {
    expect(figures.powertools.byKind.purchase.reset_after_commit).toMatchObject({ events: 1, doubled: 1, lost: 0 });
    expect(figures.powertools.byKind.refund.reset_after_commit).toMatchObject({ events: 1, doubled: 1, lost: 0 });
    expect(figures.powertools.byKind.refund.clean).toMatchObject({ events: 1, doubled: 0, lost: 0 });
  });

  it('removes those doubles with the history check, but not when the remark has left the first page of the history', () => {
    expect(figures.powertoolsHistory.byKind.purchase.reset_after_commit).toMatchObject({ doubled: 0, lost: 0 });
    expect(figures.powertoolsHistory.byKind.refund.reset_after_commit).toMatchObject({ doubled: 0, lost: 0 });
    expect(figures.powertoolsHistory.byKind.purchase.busy_member).toMatchObject({ doubled: 1 });
    expect(figures.bridge.byKind.purchase.busy_member).toMatchObject({ doubled: 0, lost: 0 });
    // The busy account's entries are the bench's own requests, not the side's upstream calls.
    expect(figures.powertoolsHistory.byKind.purchase.busy_member?.upstreamCalls).toBeLessThan(BUSY_ENTRIES);
  });

  it('loses the debit of a member who spent the points on both Powertools sides, where the bridge debits what is left', () => {
    expect(figures.powertools.byKind.refund.insufficient).toMatchObject({ events: 1, lost: 1 });
    expect(figures.powertoolsHistory.byKind.refund.insufficient).toMatchObject({ events: 1, lost: 1 });
    expect(figures.bridge.byKind.refund.insufficient).toMatchObject({ events: 1, doubled: 0, lost: 0 });
  });

  it('adds the per-kind counts up to the totals and the cumulative series ends on them', () => {
    for (const side of [figures.bridge, figures.powertools, figures.powertoolsHistory]) {
      const kinds = [...Object.values(side.byKind.purchase), ...Object.values(side.byKind.refund)];
      expect(kinds.reduce((n, k) => n + k.doubled, 0)).toBe(side.doubled);
      expect(side.doubled).toBe(side.doubledCredits + side.doubledDebits);
      expect(kinds.reduce((n, k) => n + k.lost, 0)).toBe(side.lost);
      expect(side.cumulative).toHaveLength(side.events);
      expect(side.cumulative.at(-1)).toEqual({ doubled: side.doubled, lost: side.lost });
      const writes = Object.values(side.byKind.purchase).reduce((n, k) => n + k.dynamoWrites, 0);
      expect(writes / side.purchases).toBeCloseTo(side.dynamoWritesPerPurchase, 2);
    }
  });

  it('counts DynamoDB writes at the proxy and upstream calls at the emulator for both sides, refunds apart', () => {
    for (const side of [figures.bridge, figures.powertools]) {
      expect(side.dynamoWritesPerPurchase).toBeGreaterThan(0);
      expect(side.dynamoWritesPerRefund).toBeGreaterThan(0);
      expect(side.upstreamCallsPerPurchase).toBeGreaterThanOrEqual(2);
      expect(side.upstreamCallsPerRefund).toBeGreaterThanOrEqual(2);
    }
    expect(Object.keys(figures.powertools.dynamoOperations).filter((op) => op.startsWith('Transact'))).toEqual([]);
  });
});
