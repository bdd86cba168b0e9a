import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../../../shared/ledger/index.js';
import { manualClock } from '../../../../kit/dynalite.js';
import { withLocalLedger } from '../../../support/ledger.js';

/** The ledger's part of a customer named later (Square): a skip that waits, and the one re-opening. */
const clock = manualClock();
let ledger: Ledger;
let n = 0;
const nextOrder = () => ({ source: 'square', orderId: `pay${++n}` });
const facts = { eligibleAmount: 1000, currency: 'JPY' };
const named = (ref: { source: string; orderId: string }, owner: string) => ({
  ...ref,
  owner,
  ...facts,
  externalKey: 'square',
  externalId: 'C1',
});
const WINDOW_MS = 3_600_000;
const skipAwaiting = (ref: { source: string; orderId: string }) =>
  ledger.finishPurchase(ref, null, { outcome: 'skipped', reason: 'no_customer', ...facts, awaitingCustomerUntil: clock() + WINDOW_MS });

withLocalLedger({ clock, leaseSeconds: 60 }, (made) => {
  ledger = made.ledger;
});

describe('ledger: an order awaiting its customer', () => {
  it('is recorded skipped with the end of its window', async () => {
    const ref = nextOrder();
    expect(await skipAwaiting(ref)).toMatchObject({ state: 'done', outcome: 'skipped', awaitingCustomerUntil: clock() + WINDOW_MS });
  });

  it('is re-opened once: the lease goes to the first delivery naming the customer, the skip is undone', async () => {
    const ref = nextOrder();
    await skipAwaiting(ref);
    const first = await ledger.reopenPurchase(named(ref, 'a'));
    expect(first).toMatchObject({ ok: true, previous: { state: 'done', outcome: 'skipped' } });
    const order = await ledger.getOrder(ref);
    expect(order).toMatchObject({ state: 'pending', leaseOwner: 'a', externalId: 'C1' });
    expect(order?.outcome).toBeUndefined();
    expect(order?.awaitingCustomerUntil).toBeUndefined();
    expect((await ledger.reopenPurchase(named(ref, 'b'))).ok).toBe(false);
  });

  it('is not re-opened after its window', async () => {
    const ref = nextOrder();
    await skipAwaiting(ref);
    clock.advance(WINDOW_MS + 1);
    const claim = await ledger.reopenPurchase(named(ref, 'a'));
    expect(claim).toMatchObject({ ok: false, current: { state: 'done', outcome: 'skipped' } });
  });

  it('never re-opens a credited order', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(named(ref, 'a'));
    await ledger.finishPurchase(ref, 'a', { outcome: 'credited', customerId: 'm1', pointsHint: 50 });
    expect((await ledger.reopenPurchase(named(ref, 'b'))).ok).toBe(false);
  });

  it('a customer-less skip never overwrites an order a named delivery has claimed', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(named(ref, 'a'));
    await ledger.releaseOrder(ref, 'a', { lastError: 'lookup failed' });
    expect(await skipAwaiting(ref)).toBeUndefined();
    expect(await ledger.getOrder(ref)).toMatchObject({ state: 'pending' });
  });

  it('keeps the refunds waiting on a stub and accepts more while the window is open', async () => {
    const ref = nextOrder();
    await ledger.registerWaitingRefund({ ...ref, refundId: 'r1' });
    await skipAwaiting(ref);
    const order = await ledger.registerWaitingRefund({ ...ref, refundId: 'r2' });
    expect(order?.waitingRefunds.sort()).toEqual(['r1', 'r2']);
    clock.advance(WINDOW_MS + 1);
    expect(await ledger.registerWaitingRefund({ ...ref, refundId: 'r3' })).toBeUndefined();
  });
});
