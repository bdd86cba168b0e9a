import { describe, expect, it } from 'vitest';
import { recordOutcomeMetrics } from '../../../../shared/points/index.js';

/** A sink that keeps what was counted (the processor's metrics are Powertools' in Lambda). */
function sink() {
  const counted: Record<string, number> = {};
  const addMetric = (name: string, _unit: string, value: number) => {
    counted[name] = (counted[name] ?? 0) + value;
  };
  return { counted, addMetric };
}

describe('outcome metrics of calls in doubt', () => {
  it('counts an event waiting for the in-doubt horizon as a call in doubt', () => {
    const m = sink();
    recordOutcomeMetrics(m, {
      kind: 'outcome_unknown',
      action: 'retry',
      errorKind: 'network',
      reason: 'reset',
      leaseKept: false,
      until: 1,
    });
    expect(m.counted).toMatchObject({ Outcome_outcome_unknown: 1, CallsInDoubt: 1 });
    expect(m.counted.SearchesIncomplete).toBeUndefined();
  });

  it("counts a search that could not reach the call's send apart: it is in doubt, never absent", () => {
    const m = sink();
    recordOutcomeMetrics(m, {
      kind: 'outcome_unknown',
      action: 'retry',
      errorKind: 'search_incomplete',
      reason: 'page guard',
      leaseKept: false,
      until: 1,
    });
    expect(m.counted).toMatchObject({ CallsInDoubt: 1, SearchesIncomplete: 1 });
  });

  it('counts a refund waiting for a sibling refund in doubt apart, not as an incomplete search', () => {
    const m = sink();
    recordOutcomeMetrics(m, {
      kind: 'outcome_unknown',
      action: 'retry',
      errorKind: 'sibling_in_doubt',
      reason: 'another refund of this order is unfinished',
      leaseKept: false,
      until: 1,
    });
    expect(m.counted).toMatchObject({ CallsInDoubt: 1, SiblingRefundsWaiting: 1 });
    expect(m.counted.SearchesIncomplete).toBeUndefined();
  });
});
