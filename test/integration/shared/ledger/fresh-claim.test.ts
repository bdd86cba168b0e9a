import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createLedger, type Ledger, type OrderRecord } from '../../../../shared/ledger/index.js';
import { orderKey } from '../../../../shared/ledger/records.js';
import { manualClock, startDynalite, type LocalDynamo } from '../../../support/dynalite.js';

/**
 * A new order is claimed by one put and, when no other write came in between, finished by one
 * whole-item replace (shared/ledger/orders.ts). These pin down that the shortcut loses nothing
 * another writer added and writes the same record as the update it stands in for.
 */

let dynamo: LocalDynamo;
const clock = manualClock();
let ledger: Ledger;
let n = 0;
const nextOrder = () => ({ source: 'shopify', orderId: `fresh-${++n}` });
const purchase = (ref: { source: string; orderId: string }, owner: string) => ({
  ...ref,
  owner,
  eligibleAmount: 41495,
  eligibleExact: '414.95',
  currency: 'USD',
  externalKey: 'shopify',
  externalId: '1001',
});
const credited = { outcome: 'credited', customerId: 'm1', pointsHint: 20 } as const;

const rawItem = async (ref: { source: string; orderId: string }) =>
  (await dynamo.documentClient.send(new GetCommand({ TableName: dynamo.tableName, Key: { pk: orderKey(ref.source, ref.orderId) } }))).Item;

/** The record without what differs between two orders by nature (ids) or by path (write count, refund lists). */
const comparable = (order: OrderRecord | undefined) => {
  const { pk: _pk, orderId: _orderId, revision: _revision, waitingRefunds: _w, refundIds: _r, ...rest } = order ?? ({} as OrderRecord);
  return rest;
};

beforeAll(async () => {
  dynamo = await startDynalite();
  ledger = createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock, ttlDays: 400, leaseSeconds: 60 });
});
afterAll(async () => {
  await dynamo.stop();
});

describe('ledger: a new order claimed and finished whole', () => {
  it('a refund registered while the purchase holds its lease is still listed after the finish', async () => {
    const ref = nextOrder();
    expect((await ledger.claimPurchase(purchase(ref, 'p'))).ok).toBe(true);
    await ledger.registerWaitingRefund({ ...ref, refundId: 'r1' });
    const done = await ledger.finishPurchase(ref, 'p', credited);
    expect(done).toMatchObject({ state: 'done', outcome: 'credited', waitingRefunds: ['r1'], refundIds: ['r1'] });
    expect(await ledger.getOrder(ref)).toMatchObject({ waitingRefunds: ['r1'], refundIds: ['r1'] });
  });

  it('an order finished whole reads the same as one whose finish was an update', async () => {
    const whole = nextOrder();
    const updated = nextOrder();
    await ledger.claimPurchase(purchase(whole, 'a'));
    await ledger.claimPurchase(purchase(updated, 'b'));
    // Another write in between sends the second finish down the update path.
    await ledger.registerWaitingRefund({ ...updated, refundId: 'r1' });
    await ledger.forgetWaitingRefund({ ...updated, refundId: 'r1' });
    clock.advance(1_000);
    await ledger.finishPurchase(whole, 'a', { ...credited, reason: 'why' });
    await ledger.finishPurchase(updated, 'b', { ...credited, reason: 'why' });
    const [a, b] = [await ledger.getOrder(whole), await ledger.getOrder(updated)];
    expect(a).toMatchObject({ state: 'done', eligibleExact: '414.95', refunds: {}, reason: 'why' });
    expect(comparable(a)).toEqual(comparable(b));
  });

  it('the finish of a lease another attempt took over writes nothing', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    clock.advance(60_001);
    expect((await ledger.claimPurchase(purchase(ref, 'b'))).ok).toBe(true);
    expect(await ledger.finishPurchase(ref, 'a', credited)).toBeUndefined();
    expect(await ledger.getOrder(ref)).toMatchObject({ state: 'pending', leaseOwner: 'b', attempts: 2 });
  });

  it('a released claim is finished by its next holder, not replaced by the one who released it', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    await ledger.releaseOrder(ref, 'a', { lastError: 'HTTP 503' });
    expect((await ledger.claimPurchase(purchase(ref, 'b'))).ok).toBe(true);
    expect(await ledger.finishPurchase(ref, 'a', credited)).toBeUndefined();
    expect(await ledger.finishPurchase(ref, 'b', credited)).toMatchObject({ state: 'done', attempts: 2 });
  });

  it('every write of a record counts itself in its revision', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    expect((await rawItem(ref))?.revision).toBe(1);
    await ledger.registerWaitingRefund({ ...ref, refundId: 'r1' });
    expect((await rawItem(ref))?.revision).toBe(2);
    await ledger.finishPurchase(ref, 'a', credited);
    expect((await rawItem(ref))?.revision).toBe(3);
  });

  it('a new order finished with nothing in between is written in two revisions', async () => {
    const ref = nextOrder();
    await ledger.claimPurchase(purchase(ref, 'a'));
    await ledger.finishPurchase(ref, 'a', credited);
    expect(await rawItem(ref)).toMatchObject({ revision: 2, state: 'done' });
    expect(await rawItem(ref)).not.toHaveProperty('leaseOwner');
  });
});
