import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../../../shared/points/index.js';
import { purchase, refund, SimulatedCrash, useHarness } from './harness.js';

const h = useHarness();

describe('a refund queued in its purchase’s own FIFO group (a POS return before its sale)', () => {
  it('is parked at once instead of waiting, so the sale behind it is not held back', async () => {
    const sale = purchase({ source: 'pos', eligibleAmount: 1000 });
    const ret = refund(sale, 'ret-1', 1000);
    const outcome = await h.processor().process(ret, { inEventGroup: true });
    expect(outcome).toMatchObject({ kind: 'refund_parked', action: 'ack' });
  });

  it('is debited when the sale behind it is credited', async () => {
    const sale = purchase({ source: 'pos', eligibleAmount: 1000 });
    const ret = refund(sale, 'ret-1', 1000);
    await h.processor().process(ret, { inEventGroup: true });
    const credit = await h.processor().process(sale, { inEventGroup: true });
    expect(credit).toMatchObject({ kind: 'credited', followUps: [{ refundId: 'ret-1', kind: 'debited', points: 50 }] });
  });

  it('stays parked when a duplicate delivery dies right after claiming it, and is debited once its sale is credited', async () => {
    const sale = purchase({ source: 'pos', eligibleAmount: 1000 });
    const ret = refund(sale, 'ret-dup', 1000);
    await h.processor().process(ret, { inEventGroup: true });
    const crash: Checkpoint = (step) => {
      if (step === 'refund:claimed') throw new SimulatedCrash(`crash at ${step}`);
    };
    await expect(h.processor({ checkpoint: crash }).process(ret, { inEventGroup: true })).rejects.toThrow(SimulatedCrash);
    // Its own message was acknowledged when it was parked: nothing would ever finish a refund left pending.
    expect(await h.ledger.getRefund(ret)).toMatchObject({ state: 'parked', outcome: 'refund_parked' });
    h.expireLeases();
    const credit = await h.processor().process(sale, { inEventGroup: true });
    expect(credit).toMatchObject({ kind: 'credited', followUps: [{ refundId: 'ret-dup', kind: 'debited', points: 50 }] });
  });

  it('still waits when it sits in a group of its own (a Shopify refund names no customer)', async () => {
    const order = purchase({ eligibleAmount: 1000 });
    const ret = refund(order, 'r1', 1000, { customer: null });
    const outcome = await h.processor().process(ret, { inEventGroup: true });
    expect(outcome).toMatchObject({ kind: 'refund_waiting', action: 'retry' });
  });
});
