import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { withDemoStack } from '../../support/local-stack.js';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../support/smaregi.js';

/**
 * Edits of credited Smaregi sales through `npm start`'s stack, raising and lowering, repeated and in
 * any order: the member's points for a sale always end at the service's calculation on its final amount.
 * taro (gold: 5 %, rounded down by the service) is Smaregi member C-0001.
 */
describe('Smaregi edits raising and lowering a credited sale', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'compact', log: (l) => process.env.SMAREGI_TEST_LOG && console.log(l) }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
  });

  const balance = async () => (await handle.openapi.getMemberByExternalId('smaregi', 'C-0001')).point;
  const deliver = async (id: string, action = 'edited') => {
    const answer = await deliverSmaregi(stack, [id], { action });
    expect(answer.status).toBe(202);
    await handle.waitForIdle();
  };
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
  const order = (orderId: string) => stack.ledger.getOrder({ source: 'smaregi', orderId });

  it('credits a raise once: the sale then one supplement, though the edit is delivered twice', async () => {
    await ring('2001', 10000);
    const before = await balance();
    await deliver('2001', 'created');
    await ring('2001', 12000);
    await deliver('2001');
    await deliver('2001');
    const [supplement, second] = [await order('2001/up-1'), await order('2001/up-2')];
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
    await deliver('2002', 'created');
    await ring('2002', 10020);
    await deliver('2002');
    expect((await balance()) - before).toBe(501);
  });

  it('takes back the sale and its supplement in full when a raised sale is voided', async () => {
    await ring('2003', 10000);
    const before = await balance();
    await deliver('2003', 'created');
    await ring('2003', 14000);
    await deliver('2003');
    await ring('2003', 14000, { cancelDivision: '1' });
    await deliver('2003', 'canceled');
    await deliver('2003', 'edited');
    expect(await balance()).toBe(before);
  });

  it('takes back no more than was credited when a raised sale is return-cancelled', async () => {
    await ring('2004', 10000);
    const before = await balance();
    await deliver('2004', 'created');
    await ring('2004', 12000);
    await deliver('2004');
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-return-cancellation.json', '2005', { disposeServerTransactionHeadId: '2004' }),
    );
    await ring('2004', 12000, { disposeDivision: '1', disposeServerTransactionHeadId: '2005' });
    await deliver('2005', 'created');
    await deliver('2004');
    expect(await balance()).toBe(before);
  });

  it('credits the final state after a lowering edit and a raise back above the sale', async () => {
    await ring('2006', 10000);
    const before = await balance();
    await deliver('2006', 'created');
    await ring('2006', 5000);
    await deliver('2006');
    expect((await balance()) - before).toBe(250);
    await ring('2006', 12000);
    await deliver('2006');
    await deliver('2006');
    expect((await balance()) - before).toBe(600);
  });

  it('credits the final state after a raise, a lowering below the sale and a raise back to the sale amount', async () => {
    await ring('2007', 10000);
    const before = await balance();
    await deliver('2007', 'created');
    for (const net of [12000, 8000, 10000]) {
      await ring('2007', net);
      await deliver('2007');
    }
    expect((await balance()) - before).toBe(500);
  });

  it('changes nothing when earlier edits are delivered late, after the last one was applied', async () => {
    await ring('2008', 10000);
    const before = await balance();
    await deliver('2008', 'created');
    // Edited to 12,000, then 9,000, then 11,000: only the last edit's delivery comes in time.
    await ring('2008', 11000);
    await deliver('2008');
    const applied = (await balance()) - before;
    // The deliveries of the 12,000 and 9,000 edits arrive late: the worker reads the state as it is now.
    await deliver('2008');
    await deliver('2008');
    expect({ applied, final: (await balance()) - before }).toEqual({ applied: 550, final: 550 });
  });
});
