import { describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type Ledger, orderKey } from '../../../../shared/ledger/index.js';
import { type LocalDynamo, manualClock } from '../../../../kit/dynalite.js';
import { withLocalLedger } from '../../../support/ledger.js';

const clock = manualClock();
let ledger: Ledger;
let n = 0;
const nextOrder = () => ({ source: 'shopify', orderId: `o-${++n}` });
const purchase = (ref: { source: string; orderId: string }, owner: string) => ({
  ...ref,
  owner,
  eligibleAmount: 1000,
  currency: 'JPY',
  externalKey: 'shopify',
  externalId: '1001',
});

let dynamo: LocalDynamo;
withLocalLedger({ clock, ttlDays: 400, leaseSeconds: 60 }, (made) => {
  ({ ledger, dynamo } = made);
});

const exact = <T extends object>(claim: T) => ({ ...claim, eligibleExact: '10.00' });
const credited = { outcome: 'credited', customerId: 'm1', pointsHint: 20 } as const;
const rawItem = async (ref: { source: string; orderId: string }) =>
  (await dynamo.documentClient.send(new GetCommand({ TableName: dynamo.tableName, Key: { pk: orderKey(ref.source, ref.orderId) } }))).Item;
describe('ledger: purchase claims', () => {
  it('a first claim takes the lease on a new order record', async () => {
    const ref = nextOrder();
    const claim = await ledger.claimPurchase(purchase(ref, 'a'));
    expect(claim).toEqual({ ok: true, previous: undefined });
    const order = await ledger.getOrder(ref);
    expect(order).toMatchObject({ state: 'pending', leaseOwner: 'a', attempts: 1, eligibleAmount: 1000 });
    expect(order?.leaseUntil).toBe(clock() + 60_000);
  });

  it('a second claim while the lease is live is refused and shows who holds it', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    const claim = await ledger.claimPurchase(purchase(ref, 'b'));
    expect(claim.ok).toBe(false);
    expect(claim.ok === false && claim.current?.leaseOwner).toBe('a');
  });

  it('of many concurrent claims exactly one gets the lease', async () => {
    const ref = nextOrder();
    const claims = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((o) => ledger.claimPurchase(purchase(ref, o))));
    expect(claims.filter((c) => c.ok)).toHaveLength(1);
  });

  it('an expired lease is taken over and the claim reports the previous holder', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    clock.advance(60_001);
    const claim = await ledger.claimPurchase(purchase(ref, 'b'));
    expect(claim.ok && claim.previous?.leaseOwner).toBe('a');
    expect((await ledger.getOrder(ref))?.attempts).toBe(2);
  });

  it('a finished order cannot be claimed again', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    await ledger.finishPurchase(ref, 'a', { outcome: 'credited', customerId: 'm1', pointsHint: 10 });
    clock.advance(600_000);
    const claim = await ledger.claimPurchase(purchase(ref, 'b'));
    expect(claim.ok === false && claim.current?.outcome).toBe('credited');
  });

  it('only the lease holder can finish, and a finished record expires ttlDays later', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    expect(await ledger.finishPurchase(ref, 'b', { outcome: 'credited', pointsHint: 1 })).toBeUndefined();
    const done = await ledger.finishPurchase(ref, 'a', { outcome: 'credited', customerId: 'm1', pointsHint: 10 });
    expect(done).toMatchObject({ state: 'done', outcome: 'credited', pointsHint: 10, refunds: {} });
    expect(done?.leaseOwner).toBeUndefined();
    expect(done?.ttl).toBe(Math.floor(clock() / 1000) + 400 * 86_400);
  });

  it('an unknown outcome keeps the lease running and flags the record for reconciliation', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    await ledger.releaseOrder(ref, 'a', { lastError: 'timeout', needsReconcile: true, keepLease: true });
    const order = await ledger.getOrder(ref);
    expect(order).toMatchObject({ leaseOwner: 'a', needsReconcile: true, lastError: 'timeout' });
    expect((await ledger.claimPurchase(purchase(ref, 'b'))).ok).toBe(false);
  });

  it('a skip is recorded without a claim, once', async () => {
    const ref = nextOrder();
    expect(await ledger.finishPurchase(ref, null, { outcome: 'skipped', reason: 'test' })).toMatchObject({ state: 'done' });
    expect(await ledger.finishPurchase(ref, null, { outcome: 'skipped', reason: 'test' })).toBeUndefined();
  });
});

describe('ledger: refunds', () => {
  const credited = async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'p'));
    await ledger.finishPurchase(ref, 'p', { outcome: 'credited', customerId: 'm1', pointsHint: 100 });
    return ref;
  };

  it('a refund before its purchase leaves a stub the purchase claim keeps', async () => {
    const ref = nextOrder();
    const stub = await ledger.registerWaitingRefund({ ...ref, refundId: 'r1' });
    expect(stub).toMatchObject({ state: 'stub', waitingRefunds: ['r1'], refundIds: ['r1'] });
    expect((await ledger.claimPurchase(purchase(ref, 'p'))).ok).toBe(true);
    const done = await ledger.finishPurchase(ref, 'p', { outcome: 'credited', pointsHint: 5 });
    expect(done?.waitingRefunds).toEqual(['r1']);
  });

  it('a waiting refund is not registered on an order that is already done', async () => {
    const ref = await credited();
    expect(await ledger.registerWaitingRefund({ ...ref, refundId: 'r1' })).toBeUndefined();
  });

  it('a refund is applied to its order once, and the order lease is refused once it is applied', async () => {
    const ref = await credited();
    const r = { ...ref, refundId: 'r1' };
    expect((await ledger.claimOrderForRefund(r, 'x')).ok).toBe(true);
    const applied = { amount: 500, refundedAfter: 500, target: 50, debited: 50, at: 'now' };
    const input = { refundId: 'r1', applied, refundedSoFar: 500, debitTarget: 50, debited: 50 };
    const order = await ledger.applyRefund(ref, 'x', input);
    expect(order).toMatchObject({ refundedSoFar: 500, debited: 50, refunds: { r1: applied }, refundIds: ['r1'] });
    expect(order?.leaseOwner).toBeUndefined();
    const again = await ledger.claimOrderForRefund(r, 'y');
    expect(again.ok).toBe(false);
  });

  it('an order that was not credited cannot be leased for a refund', async () => {
    const ref = nextOrder();
    await ledger.finishPurchase(ref, null, { outcome: 'customer_not_found' });
    expect((await ledger.claimOrderForRefund({ ...ref, refundId: 'r1' }, 'x')).ok).toBe(false);
  });

  it('refund records are listed per order', async () => {
    const ref = await credited();
    for (const refundId of ['a', 'b']) {
      const r = { ...ref, refundId };
      await ledger.claimRefund(r, 'x', '{}');
      await ledger.finishRefund(r, 'x', { state: 'done', outcome: 'skipped', reason: 'test' });
      await ledger.forgetWaitingRefund(r);
    }
    const refunds = await ledger.listRefunds(ref);
    expect(refunds.map((r) => r.refundId).sort()).toEqual(['a', 'b']);
  });

  it('a finished refund cannot be claimed again; a waiting one can', async () => {
    const ref = await credited();
    const a = { ...ref, refundId: 'a' };
    await ledger.claimRefund(a, 'x', '{"n":1}');
    await ledger.releaseRefund(a, 'x', { state: 'waiting', lastError: 'purchase not credited yet' });
    const again = await ledger.claimRefund(a, 'y', '{"n":2}');
    expect(again.ok && again.previous?.state).toBe('waiting');
    await ledger.finishRefund(a, 'y', { state: 'done', outcome: 'debited', pointsDebited: 3 });
    const third = await ledger.claimRefund(a, 'z', '{}');
    expect(third.ok === false && third.current).toMatchObject({ outcome: 'debited', event: '{"n":1}', attempts: 2 });
  });
});

/**
 * The finish is one conditional update on the lease (shared/ledger/orders.ts): it keeps what other
 * writers added while the lease was held, and writes nothing once the lease is no longer the finisher's.
 */
describe('ledger: a purchase finished under its lease', () => {
  it('a refund registered while the purchase holds its lease is still listed after the finish', async () => {
    const ref = nextOrder();
    expect((await ledger.claimPurchase(purchase(ref, 'p'))).ok).toBe(true);
    await ledger.registerWaitingRefund({ ...ref, refundId: 'r1' });
    const done = await ledger.finishPurchase(ref, 'p', credited);
    expect(done).toMatchObject({ state: 'done', outcome: 'credited', waitingRefunds: ['r1'], refundIds: ['r1'] });
    expect(await ledger.getOrder(ref)).toMatchObject({ waitingRefunds: ['r1'], refundIds: ['r1'] });
  });

  it('a finished order keeps the facts its claim wrote and no longer carries a lease', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(exact(purchase(ref, 'a')));
    clock.advance(1_000);
    await ledger.finishPurchase(ref, 'a', { ...credited, reason: 'why' });
    const item = await rawItem(ref);
    expect(item).toMatchObject({ state: 'done', outcome: 'credited', eligibleExact: '10.00', currency: 'JPY', refunds: {}, reason: 'why' });
    expect(item).not.toHaveProperty('leaseOwner');
    expect(item).not.toHaveProperty('leaseUntil');
  });

  it('the finish of a lease another attempt took over writes nothing', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    clock.advance(60_001);
    expect((await ledger.claimPurchase(purchase(ref, 'b'))).ok).toBe(true);
    expect(await ledger.finishPurchase(ref, 'a', credited)).toBeUndefined();
    expect(await ledger.getOrder(ref)).toMatchObject({ state: 'pending', leaseOwner: 'b', attempts: 2 });
  });

  it('a released claim is finished by its next holder, never by the one who released it', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    await ledger.releaseOrder(ref, 'a', { lastError: 'HTTP 503' });
    expect((await ledger.claimPurchase(purchase(ref, 'b'))).ok).toBe(true);
    expect(await ledger.finishPurchase(ref, 'a', credited)).toBeUndefined();
    expect(await ledger.finishPurchase(ref, 'b', credited)).toMatchObject({ state: 'done', attempts: 2 });
  });
});

/** Issue 50: a doubt an earlier attempt left on the order is dropped only by a finish that settled it (shared/points/inherited-doubt.ts). */
describe('ledger: a purchase finished over a doubt', () => {
  const doubt = { until: 1_000_000, since: 900_000, memberId: 'm1' };

  it('a finish that does not say the doubt is settled keeps the doubt an earlier attempt released', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    await ledger.releaseOrder(ref, 'a', { lastError: 'timeout', inDoubt: doubt });
    await ledger.claimPurchase(purchase(ref, 'b'));
    await ledger.finishPurchase(ref, 'b', { outcome: 'customer_not_found', reason: 'gone' });
    expect(await rawItem(ref)).toMatchObject({
      outcome: 'customer_not_found',
      needsReconcile: true,
      inDoubtUntil: 1_000_000,
      inDoubtMemberId: 'm1',
    });
  });

  it('a skip is refused by a pending order a call of which is in doubt', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    await ledger.releaseOrder(ref, 'a', { lastError: 'timeout', inDoubt: doubt });
    expect(
      await ledger.finishPurchase(ref, null, { outcome: 'skipped', reason: 'no_customer', eligibleAmount: 1000, currency: 'JPY' }),
    ).toBeUndefined();
    expect(await ledger.getOrder(ref)).toMatchObject({ state: 'pending', needsReconcile: true });
  });

  it('a skip is refused by an order whose attempt died holding its lease', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    clock.advance(60_001);
    expect(
      await ledger.finishPurchase(ref, null, { outcome: 'skipped', reason: 'no_customer', eligibleAmount: 1000, currency: 'JPY' }),
    ).toBeUndefined();
    expect(await ledger.getOrder(ref)).toMatchObject({ state: 'pending', leaseOwner: 'a' });
  });
});
