import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, loadConfigFile } from '../../../stand-ins/openapi/index.js';
import { reconcileCommand } from '../../../ops/reconcile-command.js';
import { handleOf, type LocalStack, type LocalStackHandle, startLocalStack } from '../../../local/index.js';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../../kit/smaregi.js';

/** `npm run reconcile -- --source smaregi` against a running local stack, run in-process as the CLI runs it. */
describe('npm run reconcile for Smaregi against the local stack', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    stack = await startLocalStack({ emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH) });
    handle = handleOf(stack);
    env = { PORT: String(new URL(stack.urls.intake).port) };
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
  });
  afterAll(async () => {
    await handle?.close();
    await stack?.close();
  });

  const balance = async () => (await handle.openapi.getMemberByExternalId('smaregi', 'C-0001')).point;
  async function reconcile(...extra: string[]): Promise<{ code: number; out: string[] }> {
    const out: string[] = [];
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const code = await reconcileCommand(['--source', 'smaregi', '--since', since, ...extra], env, {
      print: (l) => out.push(l),
      printError: () => {},
    });
    await handle.waitForIdle();
    return { code, out };
  }

  it('credits a sale whose webhook never came, and a second run adds nothing', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '2001'));
    const before = await balance();
    const first = await reconcile();
    const second = await reconcile();
    expect([first.code, first.out.at(-1), second.out.at(-1), await balance()]).toEqual([
      0,
      'reconcile: scanned=1 missing=1 enqueued=1',
      'reconcile: scanned=1 missing=0 enqueued=0',
      before + 500,
    ]);
  });

  it('lists what is missing and queues nothing in a dry run', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '2002'));
    const before = await balance();
    const run = await reconcile('--dry-run');
    expect([run.out.at(-1), await balance()]).toEqual(['reconcile: scanned=2 missing=1 enqueued=0', before]);
  });

  it('takes back a void whose webhook never came', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '2003'));
    expect((await deliverSmaregi(stack, ['2003'])).status).toBe(202);
    await handle.waitForIdle();
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '2003', { cancelDivision: '1' }));
    await reconcile();
    const cancel = await stack.ledger.getRefund({ source: 'smaregi', orderId: '2003', refundId: 'cancel' });
    expect([cancel?.outcome, cancel?.pointsDebited]).toEqual(['debited', 500]);
  });

  const earlier = () => new Date(Date.now() - 10 * 60_000).toISOString();

  it('brings an ¥11,000 sale edited to ¥5,500 with no webhook from 500 to 250 points, and a second run finds nothing', async () => {
    const made = earlier();
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '2004', { transactionDateTime: made }));
    const before = await balance();
    expect((await deliverSmaregi(stack, ['2004'])).status).toBe(202);
    await handle.waitForIdle();
    const lowered = smaregiTransaction('transaction-sale-tax-included.json', '2004', { transactionDateTime: made });
    Object.assign((lowered.details as Record<string, unknown>[])[0] as Record<string, unknown>, {
      unitDiscountedSum: '5500',
      taxIncludeProportional: '500',
    });
    await seedSmaregiTransaction(stack, { ...lowered, subtotal: '5500', total: '5500', taxInclude: '500' });
    const first = await reconcile();
    const second = await reconcile();
    expect([first.out.at(-1)?.includes('enqueued=1'), second.out.at(-1)?.includes('missing=0'), await balance()]).toEqual([
      true,
      true,
      before + 250,
    ]);
  });

  it('credits a sale whose member was attached later when the edit’s webhook never came', async () => {
    const made = earlier();
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-sale-tax-included.json', '2005', { transactionDateTime: made, customerId: null }),
    );
    const before = await balance();
    expect((await deliverSmaregi(stack, ['2005'])).status).toBe(202);
    await handle.waitForIdle();
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '2005', { transactionDateTime: made }));
    await reconcile();
    const second = await reconcile();
    expect([second.out.at(-1)?.includes('missing=0'), await balance()]).toEqual([true, before + 500]);
  });
  it('records a sale waiting for its customer’s link as earning nothing when the edit taking that customer off never sent its webhook', async () => {
    await seedSmaregiCustomer(stack, { customerId: '9', customerCode: 'C-0093', lastName: '九郎', firstName: '佐藤' });
    const made = earlier();
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-sale-tax-included.json', '2006', { transactionDateTime: made, customerId: '9' }),
    );
    expect((await deliverSmaregi(stack, ['2006'])).status).toBe(202);
    await handle.waitForIdle();
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-sale-tax-included.json', '2006', { transactionDateTime: made, customerId: null }),
    );
    await reconcile();
    const second = await reconcile();
    const closed = await stack.ledger.getOrder({ source: 'smaregi', orderId: '2006/up-1' });
    expect([second.out.at(-1)?.includes('missing=0'), closed?.outcome, closed?.reason]).toEqual([true, 'skipped', 'no_customer']);
  });
});
