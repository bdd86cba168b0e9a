import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { withDemoStack } from '../../support/local-stack.js';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../../kit/smaregi.js';

/**
 * Smaregi tills through `npm start`'s stack: thin webhooks to /webhooks/smaregi, the worker reading each
 * transaction from the Smaregi stand-in, points in the emulator. taro (gold: 5 %) is Smaregi member C-0001.
 */
describe('Smaregi transactions through the local stack', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'compact', log: (l) => process.env.SMAREGI_TEST_LOG && console.log(l) }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
  });

  const balance = async () => (await handle.openapi.getMemberByExternalId('smaregi', 'C-0001')).point;
  const deliver = async (ids: string[], action = 'created') => {
    const answer = await deliverSmaregi(stack, ids, { action });
    expect(answer.status).toBe(202);
    await handle.waitForIdle();
  };

  it('credits a ¥11,000 sale including ¥1,000 tax on ¥10,000, once, though delivered twice and then as edited', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '1001'));
    const before = await balance();
    await deliver(['1001']);
    await deliver(['1001']);
    await deliver(['1001'], 'edited');
    expect(await balance()).toBe(before + 500);
  });

  it('credits a tax-added sale on ¥10,000 and nothing for its pointNotApplicable line', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-added.json', '1002'));
    const before = await balance();
    await deliver(['1002']);
    expect(await balance()).toBe(before + 500);
  });

  it('refuses a delivery without the custom header with 401, and stores nothing', async () => {
    const answer = await deliverSmaregi(stack, ['1003'], { secret: null });
    expect(answer.status).toBe(401);
    expect(await stack.ledger.getOrder({ source: 'smaregi', orderId: '1003' })).toBeUndefined();
  });

  it('refuses a delivery with a wrong header value with 401', async () => {
    const answer = await deliverSmaregi(stack, ['1003'], { secret: 'x'.repeat(40) });
    expect(answer.status).toBe(401);
  });

  it('refuses a delivery for another contract with 403', async () => {
    const answer = await deliverSmaregi(stack, ['1003'], { contractId: 'another-contract' });
    expect(answer.status).toBe(403);
  });

  it('records a sale without a member as no_customer and credits nothing', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '1004', { customerId: null }));
    await deliver(['1004']);
    const order = await stack.ledger.getOrder({ source: 'smaregi', orderId: '1004' });
    expect({ outcome: order?.outcome, reason: order?.reason }).toEqual({ outcome: 'skipped', reason: 'no_customer' });
  });

  it('takes everything back when the sale is voided', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '1005'));
    const before = await balance();
    await deliver(['1005']);
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '1005', { cancelDivision: '1' }));
    await deliver(['1005'], 'edited');
    await deliver(['1005'], 'canceled');
    expect(await balance()).toBe(before);
  });

  it('takes everything back once for a return-cancellation, though both its record and the original arrive', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '1006'));
    const before = await balance();
    await deliver(['1006']);
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-return-cancellation.json', '1007', { disposeServerTransactionHeadId: '1006' }),
    );
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-sale-tax-included.json', '1006', { disposeDivision: '1', disposeServerTransactionHeadId: '1007' }),
    );
    await deliver(['1007', '1006'], 'created');
    await deliver(['1006'], 'edited');
    expect(await balance()).toBe(before);
  });

  it('takes back the difference when an edit lowers a credited sale, and nothing more when the edit comes again', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '1008'));
    const before = await balance();
    await deliver(['1008']);
    const lowered = smaregiTransaction('transaction-sale-tax-included.json', '1008');
    const line = (lowered.details as Record<string, unknown>[])[0] as Record<string, unknown>;
    Object.assign(line, { unitDiscountedSum: '5500', taxIncludeProportional: '500' });
    await seedSmaregiTransaction(stack, { ...lowered, subtotal: '5500', total: '5500', taxInclude: '500' });
    await deliver(['1008'], 'edited');
    await deliver(['1008'], 'edited');
    expect(await balance()).toBe(before + 250);
  });

  it('records a plain return, linked to no sale, as an unlinked refund for operators', async () => {
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-return-cancellation.json', '1009', {
        disposeDivision: '0',
        disposeServerTransactionHeadId: null,
        returnSales: '1',
      }),
    );
    const before = await balance();
    await deliver(['1009']);
    const refund = await stack.ledger.getRefund({ source: 'smaregi', orderId: 'unlinked', refundId: '1009' });
    expect({ outcome: refund?.outcome, reason: refund?.reason?.split(':')[0], balance: await balance() }).toEqual({
      outcome: 'skipped',
      reason: 'unlinked_refund',
      balance: before,
    });
  });

  it('credits and takes back at once a sale first seen already voided, so a late delivery of the sale changes nothing', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '1010', { cancelDivision: '1' }));
    const before = await balance();
    await deliver(['1010'], 'canceled');
    await deliver(['1010'], 'created');
    const cancel = await stack.ledger.getRefund({ source: 'smaregi', orderId: '1010', refundId: 'cancel' });
    expect([cancel?.outcome, cancel?.pointsDebited, await balance()]).toEqual(['debited', 500, before]);
  });

  // Edits raising and lowering a credited sale, repeated and in any order: the member's points for a
  // sale end at the service's calculation on its final amount (5 % for taro, rounded down by the service).
  const deliverOne = (id: string, action = 'edited') => deliver([id], action);
  /** The sale `id` now at `net` yen without tax (10 % inside the price), optionally with other changes. */
  const ring = (id: string, net: number, changes: Record<string, unknown> = {}) => {
    const tax = net / 10;
    const tx = smaregiTransaction('transaction-sale-tax-included.json', id, changes);
    const line = (tx.details as Record<string, unknown>[])[0] as Record<string, unknown>;
    const gross = String(net + tax);
    Object.assign(line, {
      price: gross,
      salesPrice: gross,
      unitNonDiscountSum: gross,
      unitDiscountedSum: gross,
      taxIncludeProportional: String(tax),
    });
    return seedSmaregiTransaction(stack, { ...tx, unitNonDiscountsubtotal: gross, subtotal: gross, total: gross, taxInclude: String(tax) });
  };
  const ledgerOrder = (orderId: string) => stack.ledger.getOrder({ source: 'smaregi', orderId });

  it('credits a raise once: the sale then one supplement, though the edit is delivered twice', async () => {
    await ring('2001', 10000);
    const before = await balance();
    await deliverOne('2001', 'created');
    await ring('2001', 12000);
    await deliverOne('2001');
    await deliverOne('2001');
    const [supplement, second] = [await ledgerOrder('2001/up-1'), await ledgerOrder('2001/up-2')];
    expect({ gained: (await balance()) - before, supplement: supplement?.outcome, second }).toEqual({
      gained: 600,
      supplement: 'credited',
      second: undefined,
    });
  });

  it('ends at the calculation on the raised total, not the sum of calculations on the parts', async () => {
    // 5 % of 10,010 is 500.5 -> 500; of 10,020 it is 501: the raise earns 1 though 5 % of its 10 alone rounds to 0.
    await ring('2002', 10010);
    const before = await balance();
    await deliverOne('2002', 'created');
    await ring('2002', 10020);
    await deliverOne('2002');
    expect((await balance()) - before).toBe(501);
  });

  it('takes back the sale and its supplement in full when a raised sale is voided', async () => {
    await ring('2003', 10000);
    const before = await balance();
    await deliverOne('2003', 'created');
    await ring('2003', 14000);
    await deliverOne('2003');
    await ring('2003', 14000, { cancelDivision: '1' });
    await deliverOne('2003', 'canceled');
    await deliverOne('2003', 'edited');
    expect(await balance()).toBe(before);
  });

  it('takes back no more than was credited when a raised sale is return-cancelled', async () => {
    await ring('2004', 10000);
    const before = await balance();
    await deliverOne('2004', 'created');
    await ring('2004', 12000);
    await deliverOne('2004');
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-return-cancellation.json', '2005', { disposeServerTransactionHeadId: '2004' }),
    );
    await ring('2004', 12000, { disposeDivision: '1', disposeServerTransactionHeadId: '2005' });
    await deliverOne('2005', 'created');
    await deliverOne('2004');
    expect(await balance()).toBe(before);
  });

  it('credits the final state after a lowering edit and a raise back above the sale', async () => {
    await ring('2006', 10000);
    const before = await balance();
    await deliverOne('2006', 'created');
    await ring('2006', 5000);
    await deliverOne('2006');
    expect((await balance()) - before).toBe(250);
    await ring('2006', 12000);
    await deliverOne('2006');
    await deliverOne('2006');
    expect((await balance()) - before).toBe(600);
  });

  it('credits the final state after a raise, a lowering below the sale and a raise back to the sale amount', async () => {
    await ring('2007', 10000);
    const before = await balance();
    await deliverOne('2007', 'created');
    for (const net of [12000, 8000, 10000]) {
      await ring('2007', net);
      await deliverOne('2007');
    }
    expect((await balance()) - before).toBe(500);
  });

  it('changes nothing when earlier edits are delivered late, after the last one was applied', async () => {
    await ring('2008', 10000);
    const before = await balance();
    await deliverOne('2008', 'created');
    // Edited to 12,000, then 9,000, then 11,000: only the last edit's delivery comes in time.
    await ring('2008', 11000);
    await deliverOne('2008');
    const applied = (await balance()) - before;
    // The deliveries of the 12,000 and 9,000 edits arrive late: the worker reads the state as it is now.
    await deliverOne('2008');
    await deliverOne('2008');
    expect({ applied, final: (await balance()) - before }).toEqual({ applied: 550, final: 550 });
  });
});
