import { describe, expect, it } from 'vitest';
import { purchaseMarker } from '../../../../shared/points/index.js';
import { CALCULATION, CLIENT_ID, LOOKUP, purchase, useHarness } from './harness.js';

const h = useHarness();

const marker = (e: { source: string; orderId: string }) => purchaseMarker(e.source, e.orderId);

describe('purchase', () => {
  it('credits the customer the calculated points once and records the outcome per order', async () => {
    const event = purchase();
    const outcome = await h.processor().process(event, { receiveCount: 1 });
    expect(outcome).toMatchObject({ kind: 'credited', action: 'ack', customerId: 'member-gold', points: 50, exact: false });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    const order = await h.ledger.getOrder(event);
    expect(order).toMatchObject({ state: 'done', outcome: 'credited', customerId: 'member-gold', pointsHint: 50, attempts: 1 });
  });

  it('a duplicate delivery is acknowledged and credits nothing more', async () => {
    const event = purchase();
    await h.processor().process(event);
    const again = await h.processor().process(event);
    expect(again).toMatchObject({ kind: 'duplicate', action: 'ack', previous: 'credited' });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('two concurrent deliveries of one order credit it once; the loser retries and then sees a duplicate', async () => {
    const event = purchase();
    // The first delivery is held right after its claim until the second has run: a fixed interleaving.
    const [first, second] = await h.whileHeldAt('purchase:claimed', event, () => h.processor().process(event));
    expect(second).toMatchObject({ kind: 'lease_held', action: 'retry' });
    expect(first).toMatchObject({ kind: 'credited' });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'duplicate' });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('a test order is skipped without calling the Open API', async () => {
    const event = purchase({ test: true });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'skipped', reason: 'test', action: 'ack' });
    expect(await h.calls(LOOKUP)).toBe(0);
    expect(await h.ledger.getOrder(event)).toMatchObject({ outcome: 'skipped', reason: 'test' });
  });

  it('a sale without a customer reference is skipped', async () => {
    const event = purchase({ customer: null });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'skipped', reason: 'no_customer' });
    expect(await h.calls(LOOKUP)).toBe(0);
  });

  it('an amount of zero is skipped', async () => {
    const event = purchase({ eligibleAmount: 0 });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'skipped', reason: 'amount_zero' });
    expect(await h.calls(LOOKUP)).toBe(0);
  });

  it('an unknown customer is acknowledged as customer_not_found and never retried', async () => {
    const event = purchase({ customer: { externalKey: 'shopify', externalId: 'nobody' } });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'customer_not_found', action: 'ack' });
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'done', outcome: 'customer_not_found' });
    expect(await h.calls(CALCULATION)).toBe(0);
  });

  it('a client without points is acknowledged as points_not_available', async () => {
    await h.emulator.patchClient(CLIENT_ID, { uses_points: false });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'points_not_available', action: 'ack' });
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'done', outcome: 'points_not_available' });
  });

  it('a customer withdrawn before the purchase is processed is acknowledged, not credited', async () => {
    await h.api.resign('member-gold');
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'customer_not_found', action: 'ack' });
    expect(await h.calls(CALCULATION)).toBe(0);
  });

  it('a contract that is no longer valid is a configuration error sent back to the queue with the reason kept', async () => {
    await h.emulator.patchClient(CLIENT_ID, { contracted: false });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'configuration_error', action: 'retry', errorKind: 'not_contracted' });
    const order = await h.ledger.getOrder(event);
    expect(order?.state).toBe('pending');
    expect(order?.lastError).toContain('not_contracted');
    expect(order?.leaseOwner).toBeUndefined();
  });

  it('in steady state a purchase costs 2 Open API calls and at most 2 DynamoDB writes', async () => {
    await h.processor().process(purchase()); // warm: token fetched once per container
    const before = { lookup: await h.calls(LOOKUP), calc: await h.calls(CALCULATION), stats: await h.emulator.stats(CLIENT_ID) };
    const totalBefore = Object.values(before.stats?.routes ?? {}).reduce((s, r) => s + r.total, 0);
    h.dynamo.resetWrites();
    expect(await h.processor().process(purchase())).toMatchObject({ kind: 'credited' });
    const stats = await h.emulator.stats(CLIENT_ID);
    const totalAfter = Object.values(stats?.routes ?? {}).reduce((s, r) => s + r.total, 0);
    expect(totalAfter - totalBefore).toBe(2);
    expect((await h.calls(LOOKUP)) - before.lookup).toBe(1);
    expect((await h.calls(CALCULATION)) - before.calc).toBe(1);
    expect(stats?.token_requests).toBe(before.stats?.token_requests);
    expect(h.dynamo.writes()).toBeLessThanOrEqual(2);
  });
});
