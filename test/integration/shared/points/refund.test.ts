import { describe, expect, it } from 'vitest';
import { createOpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { refundMarker, type CheckpointStep } from '../../../../shared/points/index.js';
import type { RefundEvent } from '../../../../shared/events/index.js';
import { CLIENT_ID, GRANT, purchase, refund, REFUND_WAIT_SECONDS, useHarness } from './harness.js';

const h = useHarness();

const GOLD = 'member-gold';
const debits = async (e: { source: string; orderId: string }, refundId: string) =>
  h.entries(GOLD, refundMarker(e.source, e.orderId, refundId));

/** Credits a purchase and returns it. 999 x 5% = 49 points (49.95 rounded down), to exercise rounding. */
async function credited(overrides: Parameters<typeof purchase>[0] = {}) {
  const event = purchase({ eligibleAmount: 999, ...overrides });
  expect(await h.processor().process(event)).toMatchObject({ kind: 'credited' });
  return event;
}

// The debit (POST) and the history search (GET) share one path.
const POINTS_PATH = '^/api/ext/users/[^/]+/points$';
/** Arms one fault on the next debit (the points grant). */
const atDebit = (fault: 'error_500' | 'reset_before' | 'reset_after_commit' | 'delay', extra: { delay_ms?: number } = {}) =>
  h.emulator.addFault({ method: 'POST', path: POINTS_PATH, fault, times: 1, ...extra });
/**
 * Processes `event` with its debit's answer lost after the debit ran and the attempt dying before it
 * booked it (right after its search found the debit), then lets the order's lease run out: a debit in doubt.
 */
async function debitAnswerLost(event: RefundEvent) {
  await atDebit('reset_after_commit');
  await h.crashAt('refund:granted', event);
  h.expireLeases();
}
/** Arms a server error on the next history search. */
const atHistorySearch = () => h.emulator.addFault({ method: 'GET', path: POINTS_PATH, fault: 'error_500', times: 1 });

describe('refunds', () => {
  it('a full refund debits exactly what the purchase credited', async () => {
    const p = await credited();
    const outcome = await h.processor().process(refund(p, 'r1', 999));
    expect(outcome).toMatchObject({ kind: 'debited', action: 'ack', points: 49, target: 49 });
    expect(await debits(p, 'r1')).toEqual([-49]);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('partial refunds add up exactly to the credit, each debiting its rounded-down share', async () => {
    const p = await credited();
    const points = [];
    for (const id of ['a', 'b', 'c']) {
      const o = await h.processor().process(refund(p, id, 333));
      expect(o.kind).toBe('debited');
      points.push('points' in o ? o.points : NaN);
    }
    expect(points).toEqual([16, 16, 17]);
    expect(await h.balance(GOLD)).toBe(0);
    expect(await h.ledger.getOrder(p)).toMatchObject({ refundedSoFar: 999, debitTarget: 49, debited: 49 });
  });

  it('refunds that claim more than the order never debit more than it earned', async () => {
    const p = await credited();
    await h.processor().process(refund(p, 'a', 800));
    await h.processor().process(refund(p, 'b', 800));
    const third = await h.processor().process(refund(p, 'c', 800));
    expect(third).toMatchObject({ kind: 'debited', points: 0 });
    expect(await h.balance(GOLD)).toBe(0);
    expect((await h.ledger.getOrder(p))?.debited).toBe(49);
  });

  it('a cancellation after a partial refund debits the rest of the credit', async () => {
    const p = await credited();
    await h.processor().process(refund(p, 'part', 100));
    const cancel = await h.processor().process(refund(p, 'cancel', 0, { refundsRemainder: true }));
    expect(cancel).toMatchObject({ kind: 'debited', points: 45 });
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('a duplicate refund delivery is acknowledged and debits nothing more', async () => {
    const p = await credited();
    const r = refund(p, 'r1', 500);
    await h.processor().process(r);
    expect(await h.processor().process(r)).toMatchObject({ kind: 'duplicate', previous: 'debited' });
    expect(await debits(p, 'r1')).toEqual([-24]);
  });

  it('two concurrent deliveries of one refund debit once', async () => {
    const p = await credited();
    const r = refund(p, 'r1', 999);
    const outcomes = await h.whileHeldAt('refund:order-claimed', r, () => h.processor().process(r));
    expect(outcomes.map((o) => o.kind)).toEqual(['debited', 'lease_held']);
    expect(await debits(p, 'r1')).toEqual([-49]);
  });

  it('two different refunds of one order at once never compute from the same base', async () => {
    const p = await credited();
    const outcomes = await h.whileHeldAt('refund:order-claimed', refund(p, 'a', 500), () => h.processor().process(refund(p, 'b', 499)));
    expect(outcomes.map((o) => o.kind)).toEqual(['debited', 'lease_held']);
    await h.processor().process(refund(p, 'a', 500));
    await h.processor().process(refund(p, 'b', 499));
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('the debit follows the credit, not the rank rate at refund time', async () => {
    const p = await credited();
    await h.api.updateMember(GOLD, { rank: 'regular' });
    expect(await h.processor().process(refund(p, 'r1', 999))).toMatchObject({ kind: 'debited', points: 49 });
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('the credit used for refunds is the history entry, even when points moved between lookup and credit', async () => {
    const p = purchase({ eligibleAmount: 999 });
    const operatorGrant = async (s: CheckpointStep) => {
      if (s === 'purchase:customer') await h.api.grantPoints(GOLD, { point: 100, remarks: 'operator' });
    };
    expect(await h.processor({ checkpoint: operatorGrant }).process(p)).toMatchObject({ kind: 'credited', points: 149, exact: false });
    expect(await h.processor().process(refund(p, 'r1', 999))).toMatchObject({ kind: 'debited', points: 49 });
    expect(await h.ledger.getOrder(p)).toMatchObject({ pointsCredited: 49, pointsExact: true, pointsHint: 149 });
    expect(await h.balance(GOLD)).toBe(100);
  });

  it('the credit entry is found past the first page of a long point history', async () => {
    const p = purchase({ eligibleAmount: 999 });
    const operatorGrant = async (s: CheckpointStep) => {
      if (s === 'purchase:customer') await h.api.grantPoints(GOLD, { point: 100, remarks: 'operator' });
    };
    expect(await h.processor({ checkpoint: operatorGrant }).process(p)).toMatchObject({ points: 149, exact: false });
    // 1000 newer entries push the credit onto the second page (1000 entries a page).
    // Through a client of its own with the default timeouts: the harness's client has short ones (for the
    // delay fault), which a busy machine can exceed while 100 grants are in flight.
    const filler = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: h.emulator.url, clientId: CLIENT_ID, clientSecret: 'test-secret' }),
    });
    try {
      for (let i = 0; i < 10; i++) {
        await Promise.all(Array.from({ length: 100 }, () => filler.grantPoints(GOLD, { point: 1, remarks: 'visit' })));
      }
    } finally {
      await filler.close();
    }
    expect(await h.processor().process(refund(p, 'r1', 999))).toMatchObject({ kind: 'debited', points: 49 });
    expect(await h.ledger.getOrder(p)).toMatchObject({ pointsCredited: 49, pointsExact: true });
  });

  it('a refund of an order whose customer is not a member waits for the customer to be linked, then is parked', async () => {
    const p = purchase({ customer: { externalKey: 'shopify', externalId: 'nobody' } });
    await h.processor().process(p);
    expect(await h.processor().process(refund(p, 'r1', 500))).toMatchObject({ kind: 'refund_waiting' });
    h.clock.advance(REFUND_WAIT_SECONDS * 1000 + 1);
    expect(await h.processor().process(refund(p, 'r1', 500))).toMatchObject({ kind: 'refund_parked' });
    expect(await h.calls(GRANT)).toBe(0);
  });

  it('a refund of a test order that earned nothing is skipped', async () => {
    const p = purchase({ test: true });
    await h.processor().process(p);
    expect(await h.processor().process(refund(p, 'r1', 500))).toMatchObject({ kind: 'skipped', reason: 'order_not_credited' });
  });
});

describe('refund before its purchase', () => {
  it('waits (retried) while the purchase is missing', async () => {
    const p = purchase({ eligibleAmount: 999 });
    const outcome = await h.processor().process(refund(p, 'r1', 999));
    expect(outcome).toMatchObject({ kind: 'refund_waiting', action: 'retry' });
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'waiting' });
    expect(await h.ledger.getOrder(p)).toMatchObject({ state: 'stub', waitingRefunds: ['r1'] });
  });

  it('is parked visibly once the wait is over, and debited when the purchase is credited', async () => {
    const p = purchase({ eligibleAmount: 999 });
    const r = refund(p, 'r1', 999);
    await h.processor().process(r);
    h.clock.advance(REFUND_WAIT_SECONDS * 1000);
    expect(await h.processor().process(r)).toMatchObject({ kind: 'refund_parked', action: 'ack' });
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'parked', outcome: 'refund_parked' });
    const credit = await h.processor().process(p);
    expect(credit).toMatchObject({ kind: 'credited', action: 'ack', followUps: [{ refundId: 'r1', kind: 'debited', points: 49 }] });
    expect(await debits(p, 'r1')).toEqual([-49]);
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'done', outcome: 'debited' });
    expect((await h.ledger.getOrder(p))?.waitingRefunds).toEqual([]);
    expect(await h.processor().process(r)).toMatchObject({ kind: 'duplicate' });
  });

  it('a waiting refund redelivered after the purchase is debited once', async () => {
    const p = purchase({ eligibleAmount: 999 });
    const r = refund(p, 'r1', 999);
    await h.processor().process(r);
    await h.processor().process(p);
    expect(await h.processor().process(r)).toMatchObject({ kind: 'duplicate' });
    expect(await debits(p, 'r1')).toEqual([-49]);
  });
});

describe('refund after the customer spent the points', () => {
  const spend = (points: number) => h.api.grantPoints(GOLD, { point: -points, remarks: 'spent in the shop' });

  it('clamp (default): debits what is held and records the shortfall', async () => {
    const p = await credited();
    await spend(40);
    const o = await h.processor().process(refund(p, 'r1', 999));
    expect(o).toMatchObject({ kind: 'insufficient_points', policy: 'clamp', points: 9, target: 49, shortfall: 40, action: 'ack' });
    expect(await h.balance(GOLD)).toBe(0);
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ outcome: 'insufficient_points', shortfall: 40 });
  });

  it('clamp: a later partial refund debits only its own share, not the earlier shortfall', async () => {
    const p = await credited();
    await spend(49);
    expect(await h.processor().process(refund(p, 'a', 500))).toMatchObject({ points: 0, target: 24, shortfall: 24 });
    await h.api.grantPoints(GOLD, { point: 100, remarks: 'earned elsewhere' });
    expect(await h.processor().process(refund(p, 'b', 499))).toMatchObject({ kind: 'debited', points: 25 });
    expect(await h.balance(GOLD)).toBe(75);
  });

  it('park: debits nothing and parks the refund with the reason', async () => {
    const p = await credited();
    await spend(40);
    const o = await h.processor({ settings: { insufficientPointsPolicy: 'park' } }).process(refund(p, 'r1', 999));
    expect(o).toMatchObject({ kind: 'insufficient_points', policy: 'park', points: 0, shortfall: 49, action: 'ack' });
    expect(await h.balance(GOLD)).toBe(9);
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'parked', outcome: 'insufficient_points' });
    expect((await h.ledger.getOrder(p))?.debited).toBe(0);
  });
});

describe('refund: the customer or the client changed', () => {
  it('a customer withdrawn after the purchase: the refund is acknowledged as customer_withdrawn', async () => {
    const p = await credited();
    await h.api.resign(GOLD);
    const o = await h.processor().process(refund(p, 'r1', 999));
    expect(o).toMatchObject({ kind: 'customer_withdrawn', action: 'ack', customerId: GOLD });
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'done', outcome: 'customer_withdrawn' });
  });

  it('a client that stopped using points: the refund is acknowledged as points_not_available', async () => {
    const p = await credited({ eligibleAmount: 1000 });
    await h.emulator.patchClient('test-client', { uses_points: false });
    expect(await h.processor().process(refund(p, 'r1', 1000))).toMatchObject({ kind: 'points_not_available', action: 'ack' });
  });
});

describe('refund: faults at the debit', () => {
  it('reset_after_commit: the answer is lost, the attempt finds the debit in the history at once and does not debit again', async () => {
    const p = await credited();
    await h.processor().process(refund(p, 'a', 333));
    await atDebit('reset_after_commit');
    const r = refund(p, 'b', 333);
    expect(await h.processor().process(r)).toMatchObject({ kind: 'debited', points: 16, reconciled: true });
    expect(await h.ledger.getRefund({ ...p, refundId: 'b' })).toMatchObject({ state: 'done', outcome: 'debited' });
    expect(await debits(p, 'b')).toEqual([-16]);
    expect(await h.calls(GRANT)).toBe(2);
  });

  it('error_500, reset_before and delay past the timeout at the debit: exactly one debit in the end', async () => {
    const p = await credited();
    const r = refund(p, 'r1', 999);
    await atDebit('error_500');
    expect(await h.processor().process(r)).toMatchObject({ action: 'retry' });
    h.passHorizon();
    await atDebit('reset_before');
    expect(await h.processor().process(r)).toMatchObject({ action: 'retry' });
    h.passHorizon();
    // The debit ran and only its answer came too late: found in the history, booked at once.
    await atDebit('delay', { delay_ms: 1500 });
    expect(await h.processor().process(r)).toMatchObject({ kind: 'debited', points: 49, reconciled: true });
    expect(await debits(p, 'r1')).toEqual([-49]);
  });

  it('a 504 at the debit whose request has not landed holds every refund of the order until the horizon', async () => {
    const p = await credited();
    const r = refund(p, 'r1', 500);
    await h.emulator.addFault({ method: 'POST', path: POINTS_PATH, fault: 'status', status: 504, body: 'gateway timeout', times: 1 });
    expect(await h.processor().process(r)).toMatchObject({ kind: 'outcome_unknown', leaseKept: false });
    // A sibling refund computes from the order's base: not before r1's debit is known.
    expect(await h.processor().process(refund(p, 'r2', 499))).toMatchObject({ kind: 'outcome_unknown' });
    h.passHorizon();
    expect(await h.processor().process(r)).toMatchObject({ kind: 'debited', points: 24 });
    expect(await debits(p, 'r1')).toEqual([-24]);
    expect(await h.processor().process(refund(p, 'r2', 499))).toMatchObject({ kind: 'debited', points: 25 });
  });

  it('a crash after the debit and before booking it: the next holder of the order books it from the history', async () => {
    const p = await credited();
    const a = refund(p, 'a', 500);
    await h.crashAt('refund:granted', a);
    h.expireLeases();
    // Another refund of the order gets there first: it books a's debit before computing its own.
    expect(await h.processor().process(refund(p, 'b', 499))).toMatchObject({ kind: 'debited', points: 25 });
    expect(await h.processor().process(a)).toMatchObject({ kind: 'debited', points: 24, reconciled: true });
    expect(await debits(p, 'a')).toEqual([-24]);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('a crash after booking and before finishing the refund record is repaired by the redelivery', async () => {
    const p = await credited();
    const r = refund(p, 'r1', 999);
    await h.crashAt('refund:applied', r);
    h.expireLeases();
    expect(await h.processor().process(r)).toMatchObject({ kind: 'debited', points: 49 });
    expect(await debits(p, 'r1')).toEqual([-49]);
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'done', outcome: 'debited' });
  });
});

describe('refund: reconciliation is never forgotten', () => {
  it('a history search that fails while reconciling a lost debit does not lead to a second debit', async () => {
    const p = await credited();
    await h.api.grantPoints(GOLD, { point: 100, remarks: 'earned elsewhere' });
    const r = refund(p, 'r1', 999);
    await debitAnswerLost(r);
    await atHistorySearch();
    expect(await h.processor().process(r)).toMatchObject({ kind: 'upstream_error', action: 'retry' });
    expect(await h.processor().process(r)).toMatchObject({ kind: 'debited', points: 49, reconciled: true });
    expect(await debits(p, 'r1')).toEqual([-49]);
    expect(await h.balance(GOLD)).toBe(100);
  });

  it('a takeover that dies before reconciling does not hide an earlier lost debit', async () => {
    const p = await credited();
    const a = refund(p, 'a', 500);
    await debitAnswerLost(a);
    await h.crashAt('refund:order-claimed', refund(p, 'b', 499));
    h.passHorizon();
    expect(await h.processor().process(a)).toMatchObject({ kind: 'debited', points: 24, reconciled: true });
    expect(await h.processor().process(refund(p, 'b', 499))).toMatchObject({ kind: 'debited', points: 25 });
    expect(await debits(p, 'a')).toEqual([-24]);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('a refund that books another lost debit and then loses its own answer is still reconciled', async () => {
    const p = await credited();
    const a = refund(p, 'a', 500);
    const b = refund(p, 'b', 499);
    await debitAnswerLost(b);
    h.passHorizon();
    await h.crashAt('refund:order-claimed', a);
    h.passHorizon();
    await debitAnswerLost(a);
    expect(await h.processor().process(a)).toMatchObject({ kind: 'debited', reconciled: true });
    expect(await h.processor().process(b)).toMatchObject({ kind: 'debited', reconciled: true });
    expect(await debits(p, 'a')).toHaveLength(1);
    expect(await debits(p, 'b')).toHaveLength(1);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('a parked refund whose pick-up fails transiently is picked up again by the purchase redelivery', async () => {
    const p = purchase({ eligibleAmount: 999 });
    const r = refund(p, 'r1', 999);
    await h.processor().process(r);
    h.clock.advance(REFUND_WAIT_SECONDS * 1000);
    expect(await h.processor().process(r)).toMatchObject({ kind: 'refund_parked', action: 'ack' });
    await atHistorySearch();
    expect(await h.processor().process(p)).toMatchObject({
      kind: 'credited',
      action: 'retry',
      followUps: [{ refundId: 'r1', kind: 'upstream_error', action: 'retry' }],
    });
    expect(await h.processor().process(p)).toMatchObject({
      kind: 'duplicate',
      action: 'ack',
      followUps: [{ refundId: 'r1', kind: 'debited', points: 49 }],
    });
    expect(await debits(p, 'r1')).toEqual([-49]);
  });

  it('a crash while the purchase runs a parked refund, after booking its debit, still finishes the refund record', async () => {
    const p = purchase({ eligibleAmount: 999 });
    const r = refund(p, 'r1', 999);
    await h.processor().process(r);
    h.clock.advance(REFUND_WAIT_SECONDS * 1000);
    await h.processor().process(r);
    await h.crashAt('refund:applied', p);
    h.expireLeases();
    expect(await h.processor().process(p)).toMatchObject({
      kind: 'duplicate',
      action: 'ack',
      followUps: [{ refundId: 'r1', kind: 'debited', points: 49 }],
    });
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'done', outcome: 'debited' });
    expect(await debits(p, 'r1')).toEqual([-49]);
  });
});
