import { describe, expect, it } from 'vitest';
import { parkedOnEarnedOrder } from '../../chaos/checks.js';

const REASON = 'before_earn: took 7466 of the provisional amount; its share is debited when the order earns';

describe('the ledger check of a run', () => {
  it('names a refund left parked before_earn on an earned order, with its reason', () => {
    const found = parkedOnEarnedOrder({ state: 'parked', reason: REASON }, { state: 'done', outcome: 'credited' });
    expect(found).toBe(`refund parked before_earn on an earned order (${REASON})`);
  });

  it('leaves a refund parked before_earn alone while its order still waits for its moment', () => {
    expect(parkedOnEarnedOrder({ state: 'parked', reason: REASON }, { state: 'done', outcome: 'pending_earn' })).toBeUndefined();
  });

  it('leaves a refund parked for its purchase alone', () => {
    const waiting = { state: 'parked', reason: 'the purchase was not credited within 120 s' } as const;
    expect(parkedOnEarnedOrder(waiting, { state: 'done', outcome: 'credited' })).toBeUndefined();
  });
});
