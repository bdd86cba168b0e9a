import { describe, expect, it } from 'vitest';
import { purchaseMarker, type CheckpointStep } from '../../../../shared/points/index.js';
import { CALCULATION, CLIENT_ID, HISTORY, IN_DOUBT_SECONDS, LEASE_SECONDS, LOOKUP, purchase, useHarness } from './harness.js';

const h = useHarness();

const CALCULATION_PATH = '^/api/ext/users/[^/]+/points/calculation$';
const marker = (e: { source: string; orderId: string }) => purchaseMarker(e.source, e.orderId);

describe('purchase: faults at the points calculation', () => {
  it('error_500 proves nothing: the order waits out the in-doubt horizon, then searches and credits exactly once', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'error_500', times: 1 });
    const event = purchase();
    const first = await h.processor().process(event);
    expect(first).toMatchObject({ kind: 'outcome_unknown', action: 'retry', leaseKept: false, until: h.clock() + IN_DOUBT_SECONDS * 1000 });
    expect(await h.ledger.getOrder(event)).toMatchObject({ needsReconcile: true, inDoubtMemberId: 'member-gold' });
    expect((await h.ledger.getOrder(event))?.leaseOwner).toBeUndefined();
    // Pressed again at once: searched, not sent.
    expect(await h.processor().process(event)).toMatchObject({ kind: 'outcome_unknown' });
    expect(await h.calls(CALCULATION)).toBe(1);
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', action: 'ack' });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('reset_before: the retry after the horizon credits exactly once', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'reset_before', times: 1 });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ action: 'retry' });
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited' });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect(await h.balance('member-gold')).toBe(50);
  });

  it('reset_after_commit: the answer is lost, the attempt finds the credit in the history at once and does not call again', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'reset_after_commit', times: 1 });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', points: 50, exact: true, reconciled: true });
    expect(await h.calls(CALCULATION)).toBe(1);
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'done', pointsCredited: 50, pointsExact: true, reconciled: true });
  });

  it('delay past the client timeout: the credit ran, so the attempt finds it in the history and records it, with no lease to wait out', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'delay', delay_ms: 1500, times: 1 });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', points: 50, reconciled: true });
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'done', outcome: 'credited' });
    expect(await h.calls(CALCULATION)).toBe(1);
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('a 504 whose request has not landed: the history shows nothing, so nothing is sent again before the horizon, then once', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'status', status: 504, body: 'gateway timeout', times: 1 });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'outcome_unknown', leaseKept: false });
    expect(await h.calls(HISTORY)).toBe(1); // searched once, found nothing: it may still land
    expect(await h.processor().process(event)).toMatchObject({ kind: 'outcome_unknown' });
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', reconciled: false });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(2);
  });
});

describe('purchase: crashes and leases', () => {
  it('a crash after the credit and before the record is reconciled from the history after the lease expires', async () => {
    const event = purchase();
    await h.crashAt('purchase:granted', event);
    expect(await h.processor().process(event)).toMatchObject({ kind: 'lease_held', action: 'retry' });
    h.expireLeases();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', exact: true, reconciled: true });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('a lease left by an attempt that died before calling is not sent again before its window end plus the horizon, then credited once', async () => {
    const event = purchase();
    await h.crashAt('purchase:claimed', event);
    h.expireLeases();
    // The dead attempt may have sent until its lease's end less the 15-s margin: in doubt until that and the horizon.
    h.clock.advance((IN_DOUBT_SECONDS - 15) * 1000 - 2);
    expect(await h.processor().process(event)).toMatchObject({ kind: 'outcome_unknown' });
    expect(await h.calls(CALCULATION)).toBe(0);
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', reconciled: false });
    // Each takeover looked before anything was sent (2); the credit's entry is then read (3): this attempt
    // used the member an earlier one kept, so it read no balance before and records no balance difference.
    expect(await h.calls(HISTORY)).toBe(3);
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect((await h.ledger.getOrder(event))?.attempts).toBe(3);
  });

  it('a crash after the record leaves the order done: the redelivery is a duplicate', async () => {
    const event = purchase();
    await h.crashAt('purchase:recorded', event);
    expect(await h.processor().process(event)).toMatchObject({ kind: 'duplicate', previous: 'credited' });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('a customer who withdraws between the lookup and the credit is recorded as withdrawn', async () => {
    const event = purchase();
    const resign = async (s: CheckpointStep) => {
      if (s === 'purchase:customer') await h.api.resign('member-gold');
    };
    expect(await h.processor({ checkpoint: resign }).process(event)).toMatchObject({ kind: 'customer_withdrawn', action: 'ack' });
    expect(await h.ledger.getOrder(event)).toMatchObject({ outcome: 'customer_withdrawn', customerId: 'member-gold' });
  });
});

describe('purchase: the member found by an earlier attempt', () => {
  /** The attempt is held after its lookup past its lease's send window: the calculation is refused unsent, the order released. */
  const slowAfterLookup = async (s: CheckpointStep) => {
    if (s === 'purchase:customer') h.clock.advance(LEASE_SECONDS * 1000);
  };

  it('a retry after a calculation refused unsent calls for the member found at first, without looking the customer up again', async () => {
    const event = purchase();
    expect(await h.processor({ checkpoint: slowAfterLookup }).process(event)).toMatchObject({ action: 'retry' });
    expect(await h.calls(CALCULATION)).toBe(0);
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'pending', foundMember: { id: 'member-gold' } });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', action: 'ack', customerId: 'member-gold' });
    expect(await h.calls(LOOKUP)).toBe(1);
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect((await h.ledger.getOrder(event))?.foundMember).toBeUndefined();
  });

  it('a call in doubt resumed after the horizon goes to the member found at first, with one lookup in all', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'error_500', times: 1 });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'outcome_unknown' });
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', customerId: 'member-gold' });
    expect(await h.calls(LOOKUP)).toBe(1);
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('a member found earlier who has withdrawn since is looked up again: the order then waits for its customer like a first attempt', async () => {
    const event = purchase();
    expect(await h.processor({ checkpoint: slowAfterLookup }).process(event)).toMatchObject({ action: 'retry' });
    await h.api.resign('member-gold');
    expect(await h.processor().process(event)).toMatchObject({ kind: 'customer_not_found', action: 'ack' });
    expect(await h.calls(LOOKUP)).toBe(2);
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'done', outcome: 'customer_not_found' });
  });

  it('a member found earlier who is gone, the customer linked to another since: the order names the new member before its call, so a crash after it is searched there', async () => {
    const event = purchase();
    expect(await h.processor({ checkpoint: slowAfterLookup }).process(event)).toMatchObject({ action: 'retry' });
    await h.api.resign('member-gold');
    await h.api.updateMember('member-regular', { external_ids: { shopify: 'cust-gold' } });
    await h.crashAt('purchase:granted', event);
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'pending', foundMember: { id: 'member-regular' } });
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', customerId: 'member-regular', reconciled: true });
    expect(await h.entries('member-regular', marker(event))).toEqual([10]);
    // The first refused for the gone member (member_not_found: nothing ran), the second sent once.
    expect(await h.calls(CALCULATION)).toBe(2);
  });

  it('a retry for the member found at first records the credit’s own size, not the balance’s move since that lookup', async () => {
    const event = purchase();
    expect(await h.processor({ checkpoint: slowAfterLookup }).process(event)).toMatchObject({ action: 'retry' });
    // Between the attempts the balance moves by 100: the balance the first attempt read (0) is stale.
    await h.api.grantPoints('member-gold', { point: 100, remarks: 'operator' });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', points: 50, exact: true });
    const order = await h.ledger.getOrder(event);
    expect([order?.pointsCredited, order?.pointsHint]).toEqual([50, undefined]);
  });

  it('a retry for the member found at first under a history behind the service records no balance difference', async () => {
    const event = purchase();
    expect(await h.processor({ checkpoint: slowAfterLookup }).process(event)).toMatchObject({ action: 'retry' });
    await h.api.grantPoints('member-gold', { point: 100, remarks: 'operator' });
    await h.emulator.patchClient(CLIENT_ID, { history_lag_ms: 3000 });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', exact: false });
    const order = await h.ledger.getOrder(event);
    expect(order).toMatchObject({ state: 'done', outcome: 'credited' });
    expect([order?.pointsCredited, order?.pointsHint]).toEqual([undefined, undefined]);
  });
});
