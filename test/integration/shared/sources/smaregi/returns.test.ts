import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../../../local/index.js';
import { createTillReturns } from '../../../../../shared/ledger/index.js';
import { withDemoStack } from '../../../../support/local-stack.js';
import {
  deliverSmaregi,
  seedSmaregiCustomer,
  seedSmaregiTransaction,
  smaregiFixture,
  smaregiTillTransaction,
} from '../../../../../kit/smaregi.js';

/**
 * `returns: auto` (SMAREGI_RETURNS=auto) through `npm start`'s stack, with a 10-day window: a plain return
 * naming no sale is applied by the worker only when exactly one earlier sale of that member, in that store,
 * within the window, holds every returned product in at least the returned quantity. taro (gold: 5 %) is
 * Smaregi member C-0001, hanako (gold) C-0002. Each test sells and returns its own product.
 */
describe('Smaregi plain returns matched automatically', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off', smaregi: { returns: 'auto', returnWindowDays: 10 } }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
    await seedSmaregiCustomer(stack, { customerId: '2', customerCode: 'C-0002', lastName: '花子', firstName: '山田' });
    const hanako = await handle.openapi.getMemberByExternalId('shopify', '1007');
    await handle.openapi.updateMember(hanako.id, { external_ids: { shopify: '1007', smaregi: 'C-0002' } });
  });

  const DAY_MS = 86_400_000;
  const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();
  const balance = async () => (await handle.openapi.getMemberByExternalId('smaregi', 'C-0001')).point;
  const till = async (id: string, o: Parameters<typeof smaregiTillTransaction>[1], returned = false) => {
    await seedSmaregiTransaction(stack, smaregiTillTransaction(id, o, returned));
    expect((await deliverSmaregi(stack, [id])).status).toBe(202);
    await handle.waitForIdle();
  };
  const kept = async (id: string) => {
    const r = await createTillReturns({ client: handle.documentClient, tableName: handle.tableName, clock: Date.now }).get('smaregi', id);
    return { status: r?.status, saleId: r?.saleId, by: r?.appliedBy };
  };

  it('applies a return to the one earlier sale of the member in that store holding the returned product, taking its share back', async () => {
    await till('6001', { productId: 'A-6001', quantity: 2, at: daysAgo(3) });
    const before = await balance();
    await till('6002', { productId: 'A-6001', quantity: 1 }, true);
    expect([await kept('6002'), await balance()]).toEqual([{ status: 'applied', saleId: '6001', by: 'auto' }, before - 500]);
  });

  it('leaves a return open when two earlier sales hold the returned product', async () => {
    await till('6010', { productId: 'A-6010', at: daysAgo(4) });
    await till('6011', { productId: 'A-6010', at: daysAgo(2) });
    const before = await balance();
    await till('6012', { productId: 'A-6010' }, true);
    expect([await kept('6012'), await balance()]).toEqual([{ status: 'open', saleId: undefined, by: undefined }, before]);
  });

  it('leaves a return open when the only sale of the product was in another store', async () => {
    await till('6020', { productId: 'A-6020', storeId: '2', at: daysAgo(1) });
    const before = await balance();
    await till('6021', { productId: 'A-6020', storeId: '1' }, true);
    expect([(await kept('6021')).status, await balance()]).toEqual(['open', before]);
  });

  it('leaves a return open when the only sale of the product is older than returnWindowDays', async () => {
    await till('6030', { productId: 'A-6030', at: daysAgo(12) });
    const before = await balance();
    await till('6031', { productId: 'A-6030' }, true);
    expect([(await kept('6031')).status, await balance()]).toEqual(['open', before]);
  });

  it('leaves a return open when the only sale holds fewer of the product than returned', async () => {
    await till('6040', { productId: 'A-6040', quantity: 1, unitGross: 5_500, at: daysAgo(1) });
    await till('6041', { productId: 'A-6040', quantity: 2, unitGross: 2_200 }, true);
    expect((await kept('6041')).status).toBe('open');
  });

  it('leaves a return open when the only sale of the product was another member’s', async () => {
    await till('6050', { productId: 'A-6050', customerId: '2', at: daysAgo(1) });
    await till('6051', { productId: 'A-6050' }, true);
    expect((await kept('6051')).status).toBe('open');
  });

  it('takes nothing more when the matched return is delivered again', async () => {
    await till('6060', { productId: 'A-6060', at: daysAgo(1) });
    await till('6061', { productId: 'A-6060' }, true);
    const before = await balance();
    expect((await deliverSmaregi(stack, ['6061'], { action: 'edited' })).status).toBe(202);
    await handle.waitForIdle();
    expect([(await kept('6061')).status, await balance()]).toEqual(['applied', before]);
  });
});
