import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { membersCommand } from '../../../ops/members.js';
import { withDemoStack } from '../../support/local-stack.js';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../../kit/smaregi.js';

/** Demo members without a Smaregi code: a code no member held is linked to one of them here. */
const DAVE = '8f6d2c1e-0004-4000-8000-000000000004';
const CAROL = '8f6d2c1e-0003-4000-8000-000000000003';
const BOB = '8f6d2c1e-0002-4000-8000-000000000002';
const EVE = '8f6d2c1e-0005-4000-8000-000000000005';
const FRANK = '8f6d2c1e-0006-4000-8000-000000000006';

/**
 * What real tills send, through `npm start`'s stack (Smaregi stand-in, emulator, dynalite), the source
 * taking store 1 only (SMAREGI_STORE_IDS=1). taro (gold: 5 %) is Smaregi member C-0001; hanako (gold)
 * becomes C-0002 here.
 */
describe('Smaregi tills: divisions, stores and members', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off', smaregi: { storeIds: ['1'] } }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: '1000' });
    await seedSmaregiCustomer(stack, { customerId: '2', customerCode: 'C-0002', lastName: '花子', firstName: '山田' });
    const hanako = await handle.openapi.getMemberByExternalId('shopify', '1007');
    await handle.openapi.updateMember(hanako.id, { external_ids: { shopify: '1007', smaregi: 'C-0002' } });
  });

  const balance = async (code = 'C-0001') => (await handle.openapi.getMemberByExternalId('smaregi', code)).point;
  const deliver = async (ids: string[], action = 'created') => {
    const answer = await deliverSmaregi(stack, ids, { action });
    expect(answer.status).toBe(202);
    await handle.waitForIdle();
  };
  const recorded = async (id: string) => {
    const order = await stack.ledger.getOrder({ source: 'smaregi', orderId: id });
    return { outcome: order?.outcome, reason: order?.reason };
  };
  /** Calls to the membership service's customer routes so far (the emulator's stats), every client together. */
  const memberCalls = async () => {
    const stats = (await (await fetch(`${stack.urls.emulator}/__emulator/stats`)).json()) as {
      clients: Record<string, { routes: Record<string, { total: number }> }>;
    };
    return Object.values(stats.clients)
      .flatMap((c) => Object.entries(c.routes))
      .filter(([route]) => route.includes('/api/ext/users'))
      .reduce((n, [, r]) => n + r.total, 0);
  };
  const sale = (id: string, changes: Record<string, unknown> = {}) => smaregiTransaction('transaction-sale-tax-included.json', id, changes);
  /** The sale's one line discounted to ¥0 by an edit (staff gave it away): the sale stays, it earns nothing. */
  const fullyDiscounted = (id: string) => {
    const [line] = (sale(id).details as Record<string, unknown>[]) ?? [];
    const free = {
      ...line,
      salesPrice: '0',
      unitDiscountPrice: '11000',
      unitDiscountSum: '11000',
      unitDiscountedSum: '0',
      taxIncludeProportional: '0',
    };
    return { subtotal: '0', total: '0', taxInclude: '0', details: [free] };
  };
  /** `npm run members -- link --source smaregi` for one code, then the worker's crediting of its earlier sales: the exit code. */
  const linkCode = async (code: string, memberId: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'members-')), 'link.csv');
    writeFileSync(file, `external_id,member_id\n${code},${memberId}\n`);
    const out = { print: () => undefined, printError: () => undefined };
    const exit = await membersCommand(['link', '--source', 'smaregi', '--file', file], { PORT: new URL(stack.urls.intake).port }, out);
    await handle.waitForIdle();
    return exit;
  };

  it('credits nothing for money in (2) or a deposit (4) of ¥11,000 for a member, with no call to the membership service, and records each as not_a_sale', async () => {
    await seedSmaregiTransaction(stack, sale('2001', { transactionHeadDivision: '2' }));
    await seedSmaregiTransaction(stack, sale('2002', { transactionHeadDivision: '4' }));
    const before = await balance();
    const calls = await memberCalls();
    await deliver(['2001', '2002']);
    const callsDuring = (await memberCalls()) - calls;
    expect([callsDuring, await balance(), await recorded('2001'), await recorded('2002')]).toEqual([
      0,
      before,
      { outcome: 'skipped', reason: 'not_a_sale' },
      { outcome: 'skipped', reason: 'not_a_sale' },
    ]);
  });

  it('credits a layaway once, on its pick-up, not on the layaway (取置き, 10) itself', async () => {
    await seedSmaregiTransaction(stack, sale('2003', { transactionHeadDivision: '10' }));
    const before = await balance();
    await deliver(['2003']);
    await seedSmaregiTransaction(stack, sale('2004', { layawayServerTransactionHeadId: '2003' }));
    const calls = await memberCalls();
    await deliver(['2004']);
    const pickUpCalls = (await memberCalls()) - calls;
    await deliver(['2003'], 'edited');
    expect([pickUpCalls > 0, await balance(), (await recorded('2003')).reason, (await recorded('2004')).outcome]).toEqual([
      true,
      before + 500,
      'not_a_sale',
      'credited',
    ]);
  });

  it('deducts nothing from the membership balance for points spent at the till under the default tillPoints (ignore), nor writes Smaregi’s customer points', async () => {
    await seedSmaregiTransaction(stack, sale('2030', { spendPoint: '300' }));
    const before = await balance();
    await deliver(['2030']);
    const spend = await stack.ledger.getOrder({ source: 'smaregi', orderId: '2030/spend-1' });
    expect([await balance(), spend, stack.standIns.smaregi.standIn.customerPoint('1')]).toEqual([before + 500, undefined, '700']);
  });

  it('credits nothing for a sale at a store the source does not take, and records it as other_store', async () => {
    await seedSmaregiTransaction(stack, sale('2005', { storeId: '3' }));
    const before = await balance();
    await deliver(['2005']);
    expect([await balance(), await recorded('2005')]).toEqual([before, { outcome: 'skipped', reason: 'other_store' }]);
  });

  it('credits a sale whose member staff attached after it, when Smaregi sends the edit', async () => {
    await seedSmaregiTransaction(stack, sale('2006', { customerId: null }));
    const before = await balance();
    await deliver(['2006']);
    await seedSmaregiTransaction(stack, sale('2006'));
    await deliver(['2006'], 'edited');
    await deliver(['2006'], 'edited');
    expect([await balance(), (await recorded('2006')).outcome]).toEqual([before + 500, 'credited']);
  });

  it('moves the points with the member when staff move the member from one sale to another', async () => {
    await seedSmaregiTransaction(stack, sale('2007'));
    await seedSmaregiTransaction(stack, sale('2008', { customerId: null }));
    const before = await balance();
    await deliver(['2007', '2008']);
    await seedSmaregiTransaction(stack, sale('2007', { customerId: null }));
    await seedSmaregiTransaction(stack, sale('2008'));
    await deliver(['2007', '2008'], 'edited');
    await deliver(['2007'], 'edited');
    expect(await balance()).toBe(before + 500);
  });

  it('moves a sale’s points to the other member when an edit names another member', async () => {
    await seedSmaregiTransaction(stack, sale('2009'));
    const [taro, hanako] = [await balance(), await balance('C-0002')];
    await deliver(['2009']);
    await seedSmaregiTransaction(stack, sale('2009', { customerId: '2' }));
    await deliver(['2009'], 'edited');
    await deliver(['2009'], 'edited');
    expect([await balance(), await balance('C-0002')]).toEqual([taro, hanako + 500]);
  });

  it('takes a sale’s points back from the member once when an edit moves it to a customer whom no member holds', async () => {
    await seedSmaregiCustomer(stack, { customerId: '3', customerCode: 'C-0099', lastName: '三郎', firstName: '佐藤' });
    await seedSmaregiTransaction(stack, sale('2012'));
    const before = await balance();
    await deliver(['2012']);
    await seedSmaregiTransaction(stack, sale('2012', { customerId: '3' }));
    await deliver(['2012'], 'edited');
    await deliver(['2012'], 'edited');
    const order = await stack.ledger.getOrder({ source: 'smaregi', orderId: '2012' });
    expect([await balance(), order?.refunds.detached?.debited, (await recorded('2012/up-1')).outcome]).toEqual([
      before,
      500,
      'customer_not_found',
    ]);
  });

  it('credits a sale moved to a customer whom no member holds and back to its member only to its member, and skips the move with its reason when that customer links later', async () => {
    await seedSmaregiCustomer(stack, { customerId: '4', customerCode: 'C-0098', lastName: '四郎', firstName: '佐藤' });
    await seedSmaregiTransaction(stack, sale('2013'));
    const [taro, daveBefore] = [await balance(), (await handle.openapi.getMember(DAVE)).point];
    await deliver(['2013']);
    await seedSmaregiTransaction(stack, sale('2013', { customerId: '4' }));
    await deliver(['2013'], 'edited');
    await seedSmaregiTransaction(stack, sale('2013'));
    await deliver(['2013'], 'edited');
    expect(await linkCode('C-0098', DAVE)).toBe(0);
    expect([
      await balance(),
      (await handle.openapi.getMember(DAVE)).point,
      await recorded('2013/up-1'),
      (await recorded('2013/up-2')).outcome,
    ]).toEqual([taro + 500, daveBefore, { outcome: 'skipped', reason: 'sale_moved' }, 'credited']);
  });

  it('credits a sale first seen naming a customer whom no member holds to the member an edit names, and that customer’s later link credits nothing of it', async () => {
    await seedSmaregiCustomer(stack, { customerId: '5', customerCode: 'C-0097', lastName: '五郎', firstName: '佐藤' });
    await seedSmaregiTransaction(stack, sale('2014', { customerId: '5' }));
    const [taro, carolBefore] = [await balance(), (await handle.openapi.getMember(CAROL)).point];
    await deliver(['2014']);
    await deliver(['2014']);
    await seedSmaregiTransaction(stack, sale('2014'));
    await deliver(['2014'], 'edited');
    await deliver(['2014'], 'edited');
    expect(await linkCode('C-0097', CAROL)).toBe(0);
    expect([
      await balance(),
      (await handle.openapi.getMember(CAROL)).point,
      await recorded('2014'),
      (await recorded('2014/up-1')).outcome,
    ]).toEqual([taro + 500, carolBefore, { outcome: 'skipped', reason: 'sale_moved' }, 'credited']);
  });

  it('credits nothing to the member who later links a customer a sale was moved to when an edit then took every customer off the sale', async () => {
    await seedSmaregiCustomer(stack, { customerId: '6', customerCode: 'C-0096', lastName: '六郎', firstName: '佐藤' });
    await seedSmaregiTransaction(stack, sale('2015'));
    const [taro, bobBefore] = [await balance(), (await handle.openapi.getMember(BOB)).point];
    await deliver(['2015']);
    await seedSmaregiTransaction(stack, sale('2015', { customerId: '6' }));
    await deliver(['2015'], 'edited');
    await seedSmaregiTransaction(stack, sale('2015', { customerId: null }));
    await deliver(['2015'], 'edited');
    await deliver(['2015'], 'edited');
    expect(await linkCode('C-0096', BOB)).toBe(0);
    expect([
      await balance(),
      (await handle.openapi.getMember(BOB)).point,
      await recorded('2015/up-1'),
      await recorded('2015/up-2'),
    ]).toEqual([taro, bobBefore, { outcome: 'skipped', reason: 'sale_moved' }, { outcome: 'skipped', reason: 'no_customer' }]);
  });

  it('moves a sale’s points from the member an edit named to the customer it first named once that customer is linked and an edit names them again', async () => {
    await seedSmaregiCustomer(stack, { customerId: '7', customerCode: 'C-0095', lastName: '七郎', firstName: '佐藤' });
    await seedSmaregiTransaction(stack, sale('2016', { customerId: '7' }));
    const [taro, eveBefore] = [await balance(), (await handle.openapi.getMember(EVE)).point];
    await deliver(['2016']);
    await seedSmaregiTransaction(stack, sale('2016'));
    await deliver(['2016'], 'edited');
    expect(await linkCode('C-0095', EVE)).toBe(0);
    await seedSmaregiTransaction(stack, sale('2016', { customerId: '7' }));
    await deliver(['2016'], 'edited');
    await deliver(['2016'], 'edited');
    // Eve is a regular member (1 %): ¥10,000 without tax earns her 100.
    expect([await balance(), (await handle.openapi.getMember(EVE)).point]).toEqual([taro, eveBefore + 100]);
  });

  it('credits nothing on a link for a waiting sale an edit lowered to ¥0, and records why', async () => {
    await seedSmaregiCustomer(stack, { customerId: '8', customerCode: 'C-0094', lastName: '八郎', firstName: '佐藤' });
    await seedSmaregiTransaction(stack, sale('2017', { customerId: '8' }));
    const frankBefore = (await handle.openapi.getMember(FRANK)).point;
    await deliver(['2017']);
    await seedSmaregiTransaction(stack, sale('2017', { customerId: '8', ...fullyDiscounted('2017') }));
    await deliver(['2017'], 'edited');
    await deliver(['2017'], 'edited');
    expect(await linkCode('C-0094', FRANK)).toBe(0);
    expect([(await handle.openapi.getMember(FRANK)).point, await recorded('2017'), await recorded('2017/up-1')]).toEqual([
      frankBefore,
      { outcome: 'skipped', reason: 'sale_moved' },
      { outcome: 'skipped', reason: 'amount_zero' },
    ]);
  });

  it('credits a sale that names its member only by the code on its head (members kept outside Smaregi)', async () => {
    await seedSmaregiTransaction(stack, sale('2010', { customerId: null, customerCode: 'C-0001' }));
    const before = await balance();
    await deliver(['2010']);
    expect(await balance()).toBe(before + 500);
  });

  it('answers a bulk-deleted delivery 202 and takes back what its transactions earned', async () => {
    await seedSmaregiTransaction(stack, sale('2011'));
    const before = await balance();
    await deliver(['2011']);
    await stack.standIns.smaregi.standIn.deleteTransaction('2011');
    await deliver(['2011'], 'bulk-deleted');
    expect(await balance()).toBe(before);
  });

  it('answers 200 ignored, not 400, for another event and for a body without transaction ids', async () => {
    const headers = {
      'content-type': 'application/json',
      [stack.standIns.smaregi.webhookHeader]: stack.standIns.smaregi.webhookSecret,
    };
    const post = async (body: unknown) => {
      const res = await fetch(`${stack.urls.intake}/webhooks/smaregi`, { method: 'POST', headers, body: JSON.stringify(body) });
      return [res.status, ((await res.json()) as { status?: string }).status];
    };
    const contractId = stack.standIns.smaregi.contractId;
    expect([
      await post({ contractId, event: 'pos:products', action: 'bulk-update', productIds: ['1'] }),
      await post({ contractId, event: 'pos:transactions', action: 'created' }),
    ]).toEqual([
      [200, 'ignored'],
      [200, 'ignored'],
    ]);
  });
});
