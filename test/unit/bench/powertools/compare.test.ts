import { beforeAll, describe, expect, it } from 'vitest';
import { type ComparisonFigures, runComparison } from '../../../../bench/powertools/compare.js';
import { FAULT_KINDS, planPurchases } from '../../../../bench/powertools/plan.js';

// A tiny seeded run: one purchase of each fault kind, through both implementations against real servers
// (emulator over HTTP, dynalite behind the counting proxy). Figures only; nothing here is about time.
describe('the side-by-side run with Powertools idempotency', () => {
  let figures: ComparisonFigures;
  beforeAll(async () => {
    figures = await runComparison({ events: FAULT_KINDS.length, seed: 3 });
  }, 120_000);

  it('gives both sides the same seeded list of purchases, every fault kind once', () => {
    const again = planPurchases(FAULT_KINDS.length, 3).map((p) => ({ orderId: p.orderId, kind: p.kind }));
    expect(figures.plan).toEqual(again);
    expect(new Set(figures.plan.map((p) => p.kind))).toEqual(new Set(FAULT_KINDS));
    for (const side of [figures.bridge, figures.powertools]) {
      expect(side.events).toBe(FAULT_KINDS.length);
      expect(Object.values(side.byKind).map((k) => k.events)).toEqual(FAULT_KINDS.map(() => 1));
    }
  });

  it('finds no credit doubled or lost by the bridge', () => {
    expect({ doubled: figures.bridge.doubled, lost: figures.bridge.lost }).toEqual({ doubled: 0, lost: 0 });
  });

  it('counts the second credit Powertools grants when the answer is lost after the commit', () => {
    expect(figures.powertools.byKind.reset_after_commit).toMatchObject({ events: 1, doubled: 1, lost: 0 });
    expect(figures.powertools.byKind.clean).toMatchObject({ events: 1, doubled: 0, lost: 0 });
  });

  it('adds the per-kind counts up to the totals and the cumulative series ends on them', () => {
    for (const side of [figures.bridge, figures.powertools]) {
      const kinds = Object.values(side.byKind);
      expect(kinds.reduce((n, k) => n + k.doubled, 0)).toBe(side.doubled);
      expect(kinds.reduce((n, k) => n + k.lost, 0)).toBe(side.lost);
      expect(side.cumulative.at(-1)).toEqual({ doubled: side.doubled, lost: side.lost });
      const writes = kinds.reduce((n, k) => n + k.dynamoWrites, 0);
      expect(writes / side.events).toBeCloseTo(side.dynamoWritesPerPurchase, 2);
    }
  });

  it('counts DynamoDB writes at the proxy and upstream calls at the emulator for both sides', () => {
    for (const side of [figures.bridge, figures.powertools]) {
      expect(side.dynamoWritesPerPurchase).toBeGreaterThan(0);
      expect(side.upstreamCallsPerPurchase).toBeGreaterThanOrEqual(2);
    }
    expect(Object.keys(figures.powertools.dynamoOperations).filter((op) => op.startsWith('Transact'))).toEqual([]);
  });
});
