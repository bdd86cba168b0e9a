import { beforeAll, describe, expect, it } from 'vitest';
import {
  deliverSmaregi,
  seedSmaregiCustomer,
  seedSmaregiTransaction,
  smaregiFixture,
  smaregiTillTransaction,
  smaregiTransaction,
} from '../../../kit/smaregi.js';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { opsCommand } from '../../../ops/index.js';
import { reconcileCommand } from '../../../ops/reconcile-command.js';
import { GetCommand } from '../../../shared/dynamodb/index.js';
import { createTillMirrors, createTillReturns, tillReturnKey, tillSaleKey } from '../../../shared/ledger/index.js';
import type { HeldMemberData } from '../../../shared/privacy/index.js';
import { opsCommandOn, withDemoStack } from '../../support/local-stack.js';

/**
 * An in-store member's privacy request through `npm start` (Smaregi stand-in, emulator, dynalite) under
 * `tillPoints: membership`: `npm run privacy -- smaregi report|erase <customer code>`. taro (gold, 5 %) is
 * Smaregi customer 1, code C-0001: the fixture sale of ¥11,000 including tax earns 500 points. Another
 * member, C-0002 (Smaregi customer 2), shops beside them and must keep everything.
 */
describe('npm run privacy -- smaregi (in-store members, npm start)', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off', smaregi: { tillPoints: 'membership' } }, (made) => {
    ({ stack, handle } = made);
  });

  const sale = (id: string, changes: Record<string, unknown> = {}) => smaregiTransaction('transaction-sale-tax-included.json', id, changes);
  const deliver = async (ids: string[], action = 'created') => {
    expect((await deliverSmaregi(stack, ids, { action })).status).toBe(202);
    await handle.waitForIdle();
  };
  const balance = async (code: string) => (await handle.openapi.getMemberByExternalId('smaregi', code)).point;
  const order = (orderId: string) => stack.ledger.getOrder({ source: 'smaregi', orderId });
  const privacy = (...args: string[]) => opsCommandOn(stack, 'privacy', ...args);
  const report = async (code: string) => JSON.parse((await privacy('smaregi', 'report', code)).text) as Record<string, unknown>;

  beforeAll(async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: '1000' });
    await seedSmaregiCustomer(stack, { customerId: '2', customerCode: 'C-0002', lastName: '鈴木', firstName: '花子' });
    await handle.openapi.registerMember({ external_ids: { smaregi: 'C-0002' } });
    // taro: a sale paid partly with 300 points, and a plain sale later voided; C-0002: one sale.
    await seedSmaregiTransaction(stack, sale('7001', { spendPoint: '300' }));
    await seedSmaregiTransaction(stack, sale('7002'));
    await seedSmaregiTransaction(stack, sale('7101', { customerId: '2', customerCode: 'C-0002' }));
    await deliver(['7001', '7002', '7101']);
    await seedSmaregiTransaction(stack, sale('7002', { cancelDivision: '1' }));
    await deliver(['7002'], 'edited');
  });

  it('reports every record of the member: sales, the till spend, the void, their activity, the member and what the till mirror writes', async () => {
    const held = await report('C-0001');
    const orders = held.orders as {
      orderId: string;
      kind: string;
      outcome: string;
      refunds: { refundId: string }[];
      activity: unknown[];
    }[];
    expect(orders.map((o) => [o.orderId, o.kind, o.outcome, o.refunds.map((r) => r.refundId)])).toEqual([
      ['7001', 'sale', 'credited', []],
      ['7001/spend-1', 'till_spend', 'debited', []],
      ['7002', 'sale', 'credited', ['cancel']],
    ]);
    expect(orders.filter((o) => o.kind === 'sale').every((o) => o.activity.length > 0)).toBe(true);
    expect(held).toMatchObject({
      source: 'smaregi',
      customerCode: 'C-0001',
      erased: false,
      membership: { balance: await balance('C-0001') },
      smaregiMirror: { tillPoints: 'membership', balanceMirrored: await balance('C-0001') },
    });
    // The sales' credits and the void's debit, each mirrored to taro's Smaregi customer.
    expect((held.tillMirrors as { smaregiCustomerId: string; points: number }[]).map((m) => [m.smaregiCustomerId, m.points > 0])).toEqual([
      ['1', true],
      ['1', true],
      ['1', false],
    ]);
    // As an id of its own (a value, a marker's or a delivery's tail): random UUIDs and times may hold the digits.
    expect(JSON.stringify(held)).not.toMatch(/(^|["/:])7101(["/:%]|$)/);
  });

  it('refuses a source that is not configured, naming it, and an empty code, changing nothing', async () => {
    const unknown = await privacy('smaregi', 'erase', 'C-0001', '--source', 'smaregi-eu');
    const empty = await privacy('smaregi', 'erase', '');
    expect([unknown.code, empty.code]).toEqual([2, 2]);
    expect(unknown.text).toMatch(/smaregi-eu/);
    expect(empty.text).toMatch(/customer code is 1 to 255/);
    expect((await order('7001'))?.externalId).toBe('C-0001');
  });

  it('erases the member, says what it did, and leaves the points already granted with the membership service', async () => {
    const before = await balance('C-0001');
    const erased = await privacy('smaregi', 'erase', 'C-0001');
    expect([erased.code, erased.text.split('\n').at(-1)]).toEqual([
      0,
      'privacy smaregi erase: orders=3 refunds=1 returns=0 till_returns=0 till_sales=2 till_mirrors=3 customers=0 tombstone=new busy=0',
    ]);
    const kept = await order('7001');
    expect([
      kept?.externalId,
      kept?.outcome,
      kept?.pointsCredited ?? kept?.pointsHint,
      kept?.customerId === undefined,
      await balance('C-0001'),
    ]).toEqual([undefined, 'credited', 500, false, before]);
    expect(await report('C-0001')).toMatchObject({ erased: true, orders: [], returns: [] });
  });

  it('reports no Smaregi customer id left in the member’s till mirror steps after the erase, their points kept', async () => {
    const steps = await createTillMirrors({ client: handle.documentClient, tableName: stack.tableName, clock: Date.now }).list();
    const theirs = steps.filter((s) => /:(7001|7002)(:|$)/.test(decodeURIComponent(s.marker)));
    expect(theirs.map((s) => [s.smaregiCustomerId, s.redactedAt !== undefined])).toEqual([
      [undefined, true],
      [undefined, true],
      [undefined, true],
    ]);
  });

  it('leaves the other member untouched', async () => {
    expect([(await order('7101'))?.externalId, ((await report('C-0002')).orders as unknown[]).length]).toEqual(['C-0002', 1]);
  });

  it('changes nothing more when run again, and says the tombstone was already there', async () => {
    const again = await privacy('smaregi', 'erase', 'C-0001');
    expect([again.code, again.text.split('\n').at(-1)]).toEqual([
      0,
      'privacy smaregi erase: orders=0 refunds=0 returns=0 till_returns=0 till_sales=0 till_mirrors=0 customers=0 tombstone=kept busy=0',
    ]);
  });

  it('brings nothing back when Smaregi replays the member’s webhooks, edits their sale or sells to them again', async () => {
    const before = await balance('C-0001');
    const mirrored = stack.standIns.smaregi.standIn.customerPoint('1');
    await deliver(['7001', '7002']);
    await seedSmaregiTransaction(stack, sale('7001', { spendPoint: '300', cancelDivision: '1' }));
    await seedSmaregiTransaction(stack, sale('7003', { spendPoint: '100' }));
    await deliver(['7001', '7003'], 'edited');
    const late = await order('7003');
    expect([
      (await order('7001'))?.externalId,
      late?.outcome,
      late?.reason,
      late?.externalId,
      await order('7003/spend-1'),
      await balance('C-0001'),
      stack.standIns.smaregi.standIn.customerPoint('1'),
      // The till's own moves only (the void gives its 300 back, the new sale spends 100): nothing written by the mirror.
    ]).toEqual([undefined, 'skipped', 'customer_redacted', undefined, undefined, before, String(Number(mirrored) + 300 - 100)]);
    expect(await report('C-0001')).toMatchObject({ orders: [], returns: [] });
  });

  it('brings nothing back through the reconcile, which finds nothing of the member missing', async () => {
    const lines: string[] = [];
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const env = { PORT: String(new URL(stack.urls.intake).port) };
    await reconcileCommand(['--source', 'smaregi', '--since', since], env, { print: (l) => lines.push(l), printError: () => {} });
    await handle.waitForIdle();
    expect([lines.at(-1), (await report('C-0001')).orders]).toEqual(['reconcile: scanned=4 missing=0 enqueued=0', []]);
  });

  it('lists the erasure among the privacy requests, naming no member', async () => {
    const listed = await privacy('list');
    const erasures = listed.text.split('\n').filter((l) => l.includes('smaregi/erase'));
    expect(erasures).toHaveLength(2);
    expect(listed.text).not.toContain('C-0001');
  });
});

/**
 * The till's records of an in-store member under `returns: auto` (SMAREGI_RETURNS=auto): the plain returns
 * kept for an operator (`till-return#`) and the sales kept to match them with (`till-sale#`), in the report
 * and out of the erase. taro (C-0001): a sale of A-7401 whose later return the worker matched with it, a
 * sale of B-7403, a return of a product never sold (left open). C-0002 (hanako): a sale and an open return.
 */
describe('npm run privacy -- smaregi: an in-store member’s till returns and the sales kept to match them', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off', smaregi: { returns: 'auto' } }, (made) => {
    ({ stack, handle } = made);
  });

  const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
  const till = async (id: string, o: Parameters<typeof smaregiTillTransaction>[1], returned = false) => {
    await seedSmaregiTransaction(stack, smaregiTillTransaction(id, o, returned));
    expect((await deliverSmaregi(stack, [id])).status).toBe(202);
    await handle.waitForIdle();
  };
  /** An operator's command against the stack (its PORT only), through the one dispatcher: exit code and every line. */
  const ops = async (...args: string[]) => {
    const lines: string[] = [];
    const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
    const code = await opsCommand(args, { PORT: new URL(stack.urls.intake).port }, out);
    await handle.waitForIdle();
    return { code, text: lines.join('\n') };
  };
  /** The rows of returns list (it must answer). */
  const openRows = async () => {
    const listed = await ops('returns', 'list');
    expect(listed.code).toBe(0);
    return listed.text.split('\n');
  };
  const report = async (code: string) => JSON.parse((await ops('privacy', 'smaregi', 'report', code)).text) as HeldMemberData;
  const tillReturns = () => createTillReturns({ client: handle.documentClient, tableName: handle.tableName, clock: Date.now });
  const rawItem = async (pk: string) =>
    (await handle.documentClient.send(new GetCommand({ TableName: handle.tableName, Key: { pk }, ConsistentRead: true }))).Item;
  const balance = async (code: string) => (await handle.openapi.getMemberByExternalId('smaregi', code)).point;

  beforeAll(async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: '1000' });
    await seedSmaregiCustomer(stack, { customerId: '2', customerCode: 'C-0002', lastName: '鈴木', firstName: '花子' });
    await handle.openapi.registerMember({ external_ids: { smaregi: 'C-0002' } });
    await till('7401', { productId: 'A-7401', quantity: 2, at: hourAgo() });
    await till('7402', { productId: 'A-7401', quantity: 1 }, true);
    await till('7403', { productId: 'B-7403', at: hourAgo() });
    await till('7404', { productId: 'X-7404' }, true);
    await till('7501', { productId: 'A-7501', customerId: '2', at: hourAgo() });
    await till('7502', { productId: 'X-7502', customerId: '2' }, true);
  });

  it('reports the till returns naming the member, open and applied, and the sales kept to match returns with', async () => {
    const held = await report('C-0001');
    expect(held.tillReturns.map((r) => [r.returnId, r.status, r.settled?.saleId])).toEqual([
      ['7402', 'applied', '7401'],
      ['7404', 'open', undefined],
    ]);
    expect(held.tillReturns[1]).toMatchObject({ storeId: '1', amount: '10000', lines: [{ productId: 'X-7404', quantity: '1' }] });
    expect(held.tillSales.map((s) => [s.saleId, s.storeId, s.lines.map((l) => l.productId)])).toEqual([
      ['7401', '1', ['A-7401']],
      ['7403', '1', ['B-7403']],
    ]);
    // The other member's sale 7501 and return 7502, as ids or in their products (a random UUID may hold the digits).
    expect(JSON.stringify(held)).not.toMatch(/"7501"|"7502"|-7501"|-7502"/);
  });

  it('takes the member out of their till returns and sales, keeping amounts and products, and says how many', async () => {
    const erased = await ops('privacy', 'smaregi', 'erase', 'C-0001');
    expect([erased.code, erased.text.split('\n').at(-1)]).toEqual([
      0,
      expect.stringMatching(/ till_returns=2 till_sales=2 till_mirrors=0 customers=0 tombstone=new busy=0$/),
    ]);
    const items = await Promise.all(
      [
        tillReturnKey('smaregi', '7402'),
        tillReturnKey('smaregi', '7404'),
        tillSaleKey('smaregi', '7401'),
        tillSaleKey('smaregi', '7403'),
      ].map(rawItem),
    );
    expect(items.map((i) => [JSON.stringify(i).includes('C-0001'), i?.amount ?? i?.lines?.[0]?.productId])).toEqual([
      [false, '10000'],
      [false, '10000'],
      [false, 'A-7401'],
      [false, 'B-7403'],
    ]);
    expect(await report('C-0001')).toMatchObject({ erased: true, tillReturns: [], tillSales: [] });
  });

  it('dismisses the member’s open return in the erase, which returns list shows no more', async () => {
    const shown = await ops('ledger', 'smaregi', 'unlinked/7404');
    const rows = await openRows();
    expect(shown.text).toContain('till return smaregi 7404: dismissed');
    expect(shown.text).toContain('member:      (erased)');
    expect(shown.text).toMatch(/dismissed: {3}by privacy-erase at \S+: the member was erased/);
    expect([rows.some((l) => l.startsWith('7404 ')), rows.some((l) => l.startsWith('7502 '))]).toEqual([false, true]);
  });

  it('leaves the other member’s sale and open return as they were', async () => {
    const held = await report('C-0002');
    const rows = await openRows();
    expect([held.tillReturns.map((r) => [r.returnId, r.status]), held.tillSales.map((s) => s.saleId)]).toEqual([
      [['7502', 'open']],
      ['7501'],
    ]);
    expect(rows.some((l) => l.startsWith('7502 ') && l.includes('smaregi:C-0002'))).toBe(true);
  });

  it('no longer finds the erased member’s sales where the automatic match looks for them', async () => {
    const query = { source: 'smaregi', externalKey: 'smaregi', externalId: 'C-0001', storeId: '1', from: '0', until: '9' };
    expect(await tillReturns().salesOf(query)).toEqual([]);
  });

  it('keeps no open return of the member’s later plain return and matches it with no sale', async () => {
    const before = await balance('C-0001');
    await till('7405', { productId: 'B-7403' }, true);
    const rows = await openRows();
    expect([
      await tillReturns().get('smaregi', '7405'),
      await stack.ledger.getRefund({ source: 'smaregi', orderId: '7403', refundId: 'return-7405' }),
      rows.some((l) => l.startsWith('7405 ')),
      await balance('C-0001'),
    ]).toEqual([undefined, undefined, false, before]);
  });
});
