import { describe, expect, it } from 'vitest';
import { LEASE_MARGIN_SECONDS } from '../../../../shared/config/index.js';
import { purchaseMarker, refundMarker, type Checkpoint, type CheckpointStep } from '../../../../shared/points/index.js';
import { CALCULATION, GRANT, LEASE_SECONDS, purchase, refund, useHarness } from './harness.js';

/**
 * The points call of an attempt goes only within its lease's send window (the lease less its margin):
 * an attempt slowed past it sends nothing and gives its lease back, so a crashed attempt's lease needs
 * to outlive its window only, not a whole invocation (shared/openapi/send-window.ts).
 */
const h = useHarness();

/** The clock moved to `seconds` after the claim when the attempt reaches `step`: its steps before the call took that long. */
const slowUntil = (step: CheckpointStep, seconds: number): Checkpoint => {
  let at: number | undefined;
  return (s) => {
    if (s === 'purchase:claimed' || s === 'refund:claimed') at = h.clock();
    if (s === step && at !== undefined) h.clock.set(at + seconds * 1000);
  };
};
const WINDOW_SECONDS = LEASE_SECONDS - LEASE_MARGIN_SECONDS;

describe('points calls within the lease', () => {
  it('a purchase whose lookups outlasted its send window sends no calculation, gives its lease back, and the retry credits once', async () => {
    const event = purchase();
    const first = await h.processor({ checkpoint: slowUntil('purchase:customer', WINDOW_SECONDS) }).process(event);
    expect(first).toMatchObject({ action: 'retry', errorKind: 'lease_window_closed' });
    expect(await h.calls(CALCULATION)).toBe(0);
    const order = await h.ledger.getOrder(event);
    expect(order?.leaseOwner).toBeUndefined();
    expect(order?.state).toBe('pending');
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', action: 'ack' });
    expect(await h.entries('member-gold', purchaseMarker(event.source, event.orderId))).toEqual([50]);
  });

  it('a purchase still inside its window sends its calculation', async () => {
    const event = purchase();
    const done = await h.processor({ checkpoint: slowUntil('purchase:customer', WINDOW_SECONDS - 2) }).process(event);
    expect(done).toMatchObject({ kind: 'credited' });
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('a fixed grant (a till spend) past its window is not sent either', async () => {
    const event = purchase({ fixedPoints: 20 });
    const first = await h.processor({ checkpoint: slowUntil('purchase:customer', WINDOW_SECONDS) }).process(event);
    expect(first).toMatchObject({ action: 'retry', errorKind: 'lease_window_closed' });
    expect(await h.calls(GRANT)).toBe(0);
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', points: 20 });
    expect(await h.entries('member-gold', purchaseMarker(event.source, event.orderId))).toEqual([20]);
  });

  it('a refund whose order was taken after its window closed sends no debit, frees the order, and the retry debits once', async () => {
    const bought = purchase();
    await h.processor().process(bought);
    const back = refund(bought, 'r-window', 400);
    const first = await h.processor({ checkpoint: slowUntil('refund:order-claimed', WINDOW_SECONDS) }).process(back);
    expect(first).toMatchObject({ action: 'retry', errorKind: 'lease_window_closed' });
    expect(await h.calls(GRANT)).toBe(0);
    expect((await h.ledger.getOrder(bought))?.leaseOwner).toBeUndefined();
    expect(await h.processor().process(back)).toMatchObject({ kind: 'debited', action: 'ack' });
    expect(await h.entries('member-gold', refundMarker(back.source, back.orderId, back.refundId))).toEqual([-20]);
  });
});
