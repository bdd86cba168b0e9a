import { beforeAll, describe, expect, it } from 'vitest';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../../kit/smaregi.js';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { reconcileCommand } from '../../../ops/reconcile-command.js';
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
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
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
      smaregiMirror: { tillPoints: 'membership', lastValueWritten: await balance('C-0001') },
    });
    expect(JSON.stringify(held)).not.toContain('7101');
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
      'privacy smaregi erase: orders=3 refunds=1 returns=0 customers=0 tombstone=new busy=0',
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

  it('leaves the other member untouched', async () => {
    expect([(await order('7101'))?.externalId, ((await report('C-0002')).orders as unknown[]).length]).toEqual(['C-0002', 1]);
  });

  it('changes nothing more when run again, and says the tombstone was already there', async () => {
    const again = await privacy('smaregi', 'erase', 'C-0001');
    expect([again.code, again.text.split('\n').at(-1)]).toEqual([
      0,
      'privacy smaregi erase: orders=0 refunds=0 returns=0 customers=0 tombstone=kept busy=0',
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
    ]).toEqual([undefined, 'skipped', 'customer_redacted', undefined, undefined, before, mirrored]);
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
