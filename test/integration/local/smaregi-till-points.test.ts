import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createTillMirrors, orderKey, tillMirrorKey } from '../../../shared/ledger/index.js';
import { purchaseMarker, refundMarker } from '../../../shared/points/index.js';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { reconcileCommand } from '../../../ops/reconcile-command.js';
import { redemptionsCommand } from '../../../ops/redemptions-command.js';
import { smaregiCommand } from '../../../ops/smaregi-command.js';
import { opsCommandOn, withDemoStack } from '../../support/local-stack.js';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../../kit/smaregi.js';

/**
 * Points spent at the till (`spendPoint`) under `tillPoints: membership` (SMAREGI_TILL_POINTS), through
 * `npm start`'s stack (Smaregi stand-in, emulator, dynalite). taro (gold: 5 %) is Smaregi member C-0001:
 * the fixture sale of ¥11,000 including tax earns 500 points.
 */
const SPEND = '^/api/ext/users/[^/]+/points$';

function tillPointsHelpers(get: () => { stack: LocalStack; handle: LocalStackHandle }) {
  const member = async () => get().handle.openapi.getMemberByExternalId('smaregi', 'C-0001');
  const balance = async () => (await member()).point;
  const deliver = async (ids: string[], action = 'created') => {
    const answer = await deliverSmaregi(get().stack, ids, { action });
    expect(answer.status).toBe(202);
    await get().handle.waitForIdle();
  };
  /** The member's history entries carrying the marker of the ledger order `orderId`, oldest first. */
  const entries = async (orderId: string) => {
    const history = await get().handle.openapi.listPoints((await member()).id, { page: 1, perPage: 1000 });
    const marker = `lp1:smaregi:order:${encodeURIComponent(orderId)}`;
    return history.points
      .filter((p) => p.remarks === marker)
      .map((p) => p.point)
      .reverse();
  };
  const recorded = async (orderId: string) => {
    const o = await get().stack.ledger.getOrder({ source: 'smaregi', orderId });
    return { outcome: o?.outcome, points: o?.pointsCredited, shortfall: o?.shortfall };
  };
  const sale = (id: string, changes: Record<string, unknown> = {}) =>
    smaregiTransaction('transaction-sale-tax-included.json', id, { spendPoint: '300', ...changes });
  const fault = async (body: Record<string, unknown>) => {
    const res = await fetch(`${get().stack.urls.emulator}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
  };
  /** The ledger order as an attempt left it that died after its points call landed: claimed, its lease run out. */
  const unfinish = async (orderId: string) => {
    await get().handle.documentClient.send(
      new UpdateCommand({
        TableName: get().stack.tableName,
        Key: { pk: orderKey('smaregi', orderId) },
        UpdateExpression: 'SET #state = :pending, leaseOwner = :dead, leaseUntil = :past REMOVE outcome, pointsCredited, finishedAt',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pending': 'pending', ':dead': 'crashed-attempt', ':past': Date.now() - 1 },
      }),
    );
  };
  /** Member lookups by external id the emulator has answered, over all its clients (its stats per endpoint). */
  const lookups = async () => {
    const stats = (await (await fetch(`${get().stack.urls.emulator}/__emulator/stats`)).json()) as {
      clients: Record<string, { routes: Record<string, { total: number }> }>;
    };
    const route = 'GET /api/ext/users/external_id/{external_key}/{external_id}';
    return Object.values(stats.clients).reduce((sum, c) => sum + (c.routes[route]?.total ?? 0), 0);
  };
  /** The member's history entries carrying the marker of the refund `refundId` on the ledger order `orderId`, oldest first. */
  const refunds = async (orderId: string, refundId: string) => {
    const history = await get().handle.openapi.listPoints((await member()).id, { page: 1, perPage: 1000 });
    const marker = refundMarker('smaregi', orderId, refundId);
    return history.points
      .filter((p) => p.remarks === marker)
      .map((p) => p.point)
      .reverse();
  };
  return { balance, deliver, entries, refunds, recorded, sale, fault, unfinish, lookups };
}

describe('Smaregi till points under tillPoints membership (insufficient points: clamp)', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off', smaregi: { tillPoints: 'membership' } }, (made) => {
    ({ stack, handle } = made);
  });
  // The till's record holds plenty before each case (a balance the till may hold stale: the stand-in, as
  // Smaregi, refuses a spend beyond it), so the membership service's own limit is what each case meets.
  beforeEach(async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: '100000' });
  });
  const h = tillPointsHelpers(() => ({ stack, handle }));

  it('deducts the 300 points spent at the till once, as an entry of its own beside the sale’s 500, when Smaregi delivers the sale twice', async () => {
    await seedSmaregiTransaction(stack, h.sale('3001'));
    const before = await h.balance();
    await h.deliver(['3001']);
    await h.deliver(['3001']);
    expect([await h.balance(), await h.entries('3001'), await h.entries('3001/spend-1'), await h.recorded('3001/spend-1')]).toEqual([
      before + 500 - 300,
      [500],
      [-300],
      { outcome: 'debited', points: -300, shortfall: undefined },
    ]);
  });

  it('finds the deduction by its marker when its answer was lost (reset after commit), and deducts it only once', async () => {
    await seedSmaregiTransaction(stack, h.sale('3002'));
    const before = await h.balance();
    await h.fault({ method: 'POST', path: SPEND, fault: 'reset_after_commit', times: 1 });
    await h.deliver(['3002']);
    const record = await stack.ledger.getOrder({ source: 'smaregi', orderId: '3002/spend-1' });
    expect([await h.balance(), await h.entries('3002/spend-1'), record?.outcome, record?.reconciled]).toEqual([
      before + 200,
      [-300],
      'debited',
      true,
    ]);
  });

  it('gives the 300 points back once when the sale is voided, with its 500 taken back as before', async () => {
    await seedSmaregiTransaction(stack, h.sale('3003'));
    const before = await h.balance();
    await h.deliver(['3003']);
    await seedSmaregiTransaction(stack, h.sale('3003', { cancelDivision: '1' }));
    await h.deliver(['3003'], 'edited');
    await h.deliver(['3003'], 'edited');
    expect([await h.balance(), await h.entries('3003/spend-1'), await h.entries('3003/spend-1/back')]).toEqual([before, [-300], [300]]);
  });

  it('adds each change a till sale makes to the Smaregi customer’s point, so a record in step with the membership balance stays in step through the sale and its void', async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: String(await h.balance()) });
    await seedSmaregiTransaction(stack, h.sale('3008'));
    await h.deliver(['3008']);
    const afterSale = [stack.standIns.smaregi.standIn.customerPoint('1'), String(await h.balance())];
    await seedSmaregiTransaction(stack, h.sale('3008', { cancelDivision: '1' }));
    await h.deliver(['3008'], 'edited');
    await h.deliver(['3008'], 'edited');
    const afterVoid = [stack.standIns.smaregi.standIn.customerPoint('1'), String(await h.balance())];
    expect([afterSale[0] === afterSale[1], afterVoid[0] === afterVoid[1], afterSale[1] !== afterVoid[1]]).toEqual([true, true, true]);
  });

  it('mirrors a sale’s credit whose worker died before its mirror step was written when Smaregi delivers the sale again, and only once', async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: String(await h.balance()) });
    await seedSmaregiTransaction(stack, h.sale('3012', { spendPoint: '0' }));
    const tillBefore = stack.standIns.smaregi.standIn.customerPoint('1');
    await h.deliver(['3012']);
    // The attempt that died: the credit landed, the add to the till record and its step never happened.
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: tillBefore });
    await handle.documentClient.send(
      new DeleteCommand({ TableName: stack.tableName, Key: { pk: tillMirrorKey('smaregi', purchaseMarker('smaregi', '3012')) } }),
    );
    await h.deliver(['3012']);
    await h.deliver(['3012']);
    expect([stack.standIns.smaregi.standIn.customerPoint('1'), await h.entries('3012')]).toEqual([String(await h.balance()), [500]]);
  });

  it('mirrors a void’s take-back whose worker died before its mirror step was written when Smaregi delivers the void again, and only once', async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: String(await h.balance()) });
    await seedSmaregiTransaction(stack, h.sale('3013', { spendPoint: '0' }));
    await h.deliver(['3013']);
    const tillBefore = stack.standIns.smaregi.standIn.customerPoint('1');
    await seedSmaregiTransaction(stack, h.sale('3013', { spendPoint: '0', cancelDivision: '1' }));
    await h.deliver(['3013'], 'edited');
    // The attempt that died: the take-back landed, the add to the till record and its step never happened.
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: tillBefore });
    await handle.documentClient.send(
      new DeleteCommand({ TableName: stack.tableName, Key: { pk: tillMirrorKey('smaregi', refundMarker('smaregi', '3013', 'cancel')) } }),
    );
    await h.deliver(['3013'], 'edited');
    await h.deliver(['3013'], 'edited');
    expect(stack.standIns.smaregi.standIn.customerPoint('1')).toBe(String(await h.balance()));
  });

  it('never overwrites a change the till made on its own: a record out of step with the membership balance keeps its difference', async () => {
    const start = (await h.balance()) + 1000;
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: String(start) });
    await seedSmaregiTransaction(stack, h.sale('3011'));
    await h.deliver(['3011']);
    expect(Number(stack.standIns.smaregi.standIn.customerPoint('1')) - (await h.balance())).toBe(1000);
  });

  it('forwards points staff added at the till (division 6) to the membership service once, under a marker of its own, and writes nothing back over the till’s record', async () => {
    const before = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3040', { transactionHeadDivision: '6', spendPoint: '0', newPoint: '250' }));
    const tillAfter = stack.standIns.smaregi.standIn.customerPoint('1');
    await h.deliver(['3040']);
    await h.deliver(['3040']);
    expect([
      (await h.balance()) - before,
      await h.entries('3040/staff'),
      await h.entries('3040'),
      stack.standIns.smaregi.standIn.customerPoint('1'),
    ]).toEqual([250, [250], [], tillAfter]);
  });

  it('forwards points staff subtracted at the till (division 7) once, and records a subtraction the balance cannot cover as insufficient_points', async () => {
    const before = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3041', { transactionHeadDivision: '7', spendPoint: '120' }));
    await h.deliver(['3041']);
    const held = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3042', { transactionHeadDivision: '7', spendPoint: String(held + 50) }));
    await h.deliver(['3042']);
    expect([held - before, await h.entries('3041/staff'), await h.recorded('3042/staff')]).toEqual([
      -120,
      [-120],
      { outcome: 'insufficient_points', points: -held, shortfall: 50 },
    ]);
  });

  it('looks the member up once for a sale with a till spend: the sale, the deduction and the change mirrored to Smaregi', async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: '1000' });
    await seedSmaregiTransaction(stack, h.sale('3951'));
    const before = await h.lookups();
    await h.deliver(['3951']);
    const lookups = (await h.lookups()) - before;
    expect([lookups, await h.entries('3951'), await h.entries('3951/spend-1')]).toEqual([1, [500], [-300]]);
    // The till took its 300 itself; the mirror added the sale's 500.
    expect(stack.standIns.smaregi.standIn.customerPoint('1')).toBe('1200');
  });

  it('gives the points back once for a return-cancellation, whichever of its two records comes first', async () => {
    await seedSmaregiTransaction(stack, h.sale('3004'));
    const before = await h.balance();
    await h.deliver(['3004']);
    const res = await fetch(`${stack.urls.smaregi}/__smaregi/return-cancellations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transactionHeadId: '3004', newTransactionHeadId: '3005' }),
    });
    expect(res.status).toBe(201);
    await h.deliver(['3005', '3004'], 'edited');
    await h.deliver(['3004', '3005'], 'edited');
    expect([await h.balance(), await h.entries('3004/spend-1/back')]).toEqual([before, [300]]);
  });

  it('follows an edit of the points spent from 300 to 200: the 300 given back, 200 deducted', async () => {
    await seedSmaregiTransaction(stack, h.sale('3006'));
    const before = await h.balance();
    await h.deliver(['3006']);
    await seedSmaregiTransaction(stack, h.sale('3006', { spendPoint: '200' }));
    await h.deliver(['3006'], 'edited');
    await h.deliver(['3006'], 'edited');
    expect([await h.balance(), await h.entries('3006/spend-1/back'), await h.entries('3006/spend-2')]).toEqual([
      before + 500 - 200,
      [300],
      [-200],
    ]);
  });

  it('takes the sale’s 500 back from the member once, with the 300 spent given back, when an edit takes the member off the sale', async () => {
    await seedSmaregiTransaction(stack, h.sale('3050'));
    const before = await h.balance();
    await h.deliver(['3050']);
    await seedSmaregiTransaction(stack, h.sale('3050', { customerId: null, customer: null, customerCode: null }));
    await h.deliver(['3050'], 'edited');
    await h.deliver(['3050'], 'edited');
    expect([await h.balance(), await h.entries('3050/spend-1/back'), await h.refunds('3050', 'detached')]).toEqual([before, [300], [-500]]);
  });

  it('takes the sale’s 500 back from the member once, with the 300 spent given back, when an edit moves the sale to a customer whom no member holds', async () => {
    await seedSmaregiCustomer(stack, { customerId: '3', customerCode: 'C-0099', lastName: '三郎', firstName: '佐藤', point: '1000' });
    await seedSmaregiTransaction(stack, h.sale('3051'));
    const before = await h.balance();
    await h.deliver(['3051']);
    await seedSmaregiTransaction(stack, h.sale('3051', { customerId: '3' }));
    await h.deliver(['3051'], 'edited');
    await h.deliver(['3051'], 'edited');
    expect([await h.balance(), await h.entries('3051/spend-1/back'), await h.refunds('3051', 'detached')]).toEqual([before, [300], [-500]]);
  });

  it('finds an edit of the points spent whose webhook never came on the next reconcile: 300 given back, 100 deducted', async () => {
    const made = new Date(Date.now() - 300_000).toISOString();
    await seedSmaregiTransaction(stack, h.sale('3009', { transactionDateTime: made, updDateTime: made }));
    const before = await h.balance();
    await h.deliver(['3009']);
    await seedSmaregiTransaction(stack, h.sale('3009', { transactionDateTime: made, spendPoint: '100' }));
    const out: string[] = [];
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const env = { PORT: String(new URL(stack.urls.intake).port) };
    await reconcileCommand(['--source', 'smaregi', '--since', since], env, { print: (l) => out.push(l), printError: () => {} });
    await handle.waitForIdle();
    expect([await h.balance(), await h.entries('3009/spend-2'), out.at(-1)?.includes('missing=1')]).toEqual([
      before + 500 - 100,
      [-100],
      true,
    ]);
  });

  it('records the spend of a customer code no member holds as customer_not_found, not kept to be deducted by a later link', async () => {
    await seedSmaregiCustomer(stack, { customerId: '9', customerCode: 'C-0009', lastName: '未', firstName: '登録', point: '1000' });
    await seedSmaregiTransaction(stack, h.sale('3010', { customerId: '9' }));
    await h.deliver(['3010']);
    const spend = await stack.ledger.getOrder({ source: 'smaregi', orderId: '3010/spend-1' });
    expect([spend?.outcome, spend?.unlinkedCustomer]).toEqual(['customer_not_found', undefined]);
  });

  it('deducts what the member holds when they spent more (clamp), records the shortfall, and gives back only what it took', async () => {
    const held = await h.balance();
    const spent = held + 500 + 1000;
    await seedSmaregiTransaction(stack, h.sale('3007', { spendPoint: String(spent) }));
    await h.deliver(['3007']);
    const afterSale = await h.balance();
    const shown = await opsCommandOn(stack, 'ledger', 'smaregi', '3007/spend-1');
    await seedSmaregiTransaction(stack, h.sale('3007', { spendPoint: String(spent), cancelDivision: '1' }));
    await h.deliver(['3007'], 'edited');
    expect([afterSale, await h.recorded('3007/spend-1'), shown.text.includes('outcome: insufficient_points'), await h.balance()]).toEqual([
      0,
      { outcome: 'insufficient_points', points: -(held + 500), shortfall: 1000 },
      true,
      held,
    ]);
  });

  it('lists a till spend the balance cut short with npm run redemptions -- shortfalls: the spend, the member, spent, taken, short and the policy', async () => {
    const held = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3030', { spendPoint: String(held + 800) }));
    await h.deliver(['3030']);
    const lines: string[] = [];
    const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
    const code = await redemptionsCommand(['shortfalls'], { PORT: new URL(stack.urls.intake).port }, out);
    const listed = { code, text: lines.join('\n') };
    const line = lines.find((l) => l.includes('3030/spend-1')) ?? listed.text;
    expect([
      listed.code,
      line.trim().split(/\s+/).slice(4),
      listed.text.split('\n').at(-1)?.startsWith('till spend shortfalls: spends='),
    ]).toEqual([0, ['smaregi', '3030/spend-1', 'C-0001', String(held + 800), String(held + 500), '300', 'clamp'], true]);
  });

  it('lists a till mirror step in conflict with npm run smaregi -- mirrors, and exits 1 so an operator looks', async () => {
    const steps = createTillMirrors({ client: handle.documentClient, tableName: stack.tableName, clock: Date.now });
    await steps.begin({
      source: 'smaregi',
      marker: 'lp1:smaregi:order:3031',
      memberId: 'm-1',
      points: 500,
      state: 'sending',
      smaregiCustomerId: '1',
      before: 10,
    });
    await steps.settle('smaregi', 'lp1:smaregi:order:3031', { state: 'conflict', found: 7, reason: 'the till point changed in between' });
    const lines: string[] = [];
    const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
    const listed = { code: await smaregiCommand(['mirrors'], { PORT: new URL(stack.urls.intake).port }, out), text: lines.join('\n') };
    const line = listed.text.split('\n').find((l) => l.includes('lp1:smaregi:order:3031')) ?? listed.text;
    expect([
      listed.code,
      line.trim().split(/\s+/).slice(4, 12),
      line.trim().endsWith('the till point changed in between'),
      /conflict=[1-9]/.test(listed.text.split('\n').at(-1) ?? ''),
    ]).toEqual([1, ['conflict', 'smaregi', 'lp1:smaregi:order:3031', 'm-1', '1', '500', '10', '7'], true, true]);
  });

  it('gives the points spent at the till back before taking the sale back when the transaction is deleted, so a member who spent everything ends where they began', async () => {
    const held = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3008', { spendPoint: String(held + 500) }));
    await h.deliver(['3008']);
    const afterSale = await h.balance();
    await stack.standIns.smaregi.standIn.deleteTransaction('3008');
    await h.deliver(['3008'], 'deleted');
    expect([afterSale, await h.recorded('3008'), await h.balance()]).toEqual([
      0,
      { outcome: 'credited', points: 500, shortfall: undefined },
      held,
    ]);
  });

  it('gives the points spent at the till back before taking the sale back when the transaction is deleted while the deduction is unfinished (its attempt died after deducting)', async () => {
    const held = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3020', { spendPoint: String(held + 500) }));
    await h.deliver(['3020']);
    await h.unfinish('3020/spend-1');
    await stack.standIns.smaregi.standIn.deleteTransaction('3020');
    await h.deliver(['3020'], 'deleted');
    expect([await h.entries('3020/spend-1'), await h.entries('3020/spend-1/back'), await h.recorded('3020'), await h.balance()]).toEqual([
      [-(held + 500)],
      [held + 500],
      { outcome: 'credited', points: 500, shortfall: undefined },
      held,
    ]);
  });

  it('gives the points spent at the till back before taking the sale back when it is voided while the deduction is unfinished (its attempt died after deducting)', async () => {
    const held = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3021', { spendPoint: String(held + 500) }));
    await h.deliver(['3021']);
    await h.unfinish('3021/spend-1');
    await seedSmaregiTransaction(stack, h.sale('3021', { spendPoint: String(held + 500), cancelDivision: '1' }));
    await h.deliver(['3021'], 'edited');
    expect([await h.entries('3021/spend-1'), await h.entries('3021/spend-1/back'), await h.balance()]).toEqual([
      [-(held + 500)],
      [held + 500],
      held,
    ]);
  });
});

describe('Smaregi till points under tillPoints membership (insufficient points: park)', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off', smaregi: { tillPoints: 'membership' }, env: { INSUFFICIENT_POINTS_POLICY: 'park' } }, (made) => {
    ({ stack, handle } = made);
  });
  // The till's record holds plenty before each case (a balance the till may hold stale: the stand-in, as
  // Smaregi, refuses a spend beyond it), so the membership service's own limit is what each case meets.
  beforeEach(async () => {
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: '100000' });
  });
  const h = tillPointsHelpers(() => ({ stack, handle }));

  it('deducts nothing when the member spent more than they hold (park), records it as insufficient_points for npm run ledger, and tries nothing more on a repeat', async () => {
    const held = await h.balance();
    await seedSmaregiTransaction(stack, h.sale('3101', { spendPoint: String(held + 5000) }));
    await h.deliver(['3101']);
    await h.deliver(['3101'], 'edited');
    const shown = await opsCommandOn(stack, 'ledger', 'smaregi', '3101/spend-1');
    expect([
      await h.balance(),
      await h.recorded('3101/spend-1'),
      await h.entries('3101/spend-1'),
      shown.text.includes(`shortfall: ${held + 5000}`),
    ]).toEqual([held + 500, { outcome: 'insufficient_points', points: 0, shortfall: held + 5000 }, [], true]);
  });
});
