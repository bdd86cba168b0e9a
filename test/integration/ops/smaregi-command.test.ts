import { describe, expect, it } from 'vitest';
import type { LocalStack } from '../../../local/index.js';
import { smaregiCommand } from '../../../ops/smaregi-command.js';
import { withDemoStack } from '../../support/local-stack.js';
import { seedSmaregiCustomer, seedSmaregiTransaction, smaregiTransaction } from '../../../kit/smaregi.js';

/**
 * `npm run smaregi -- check` against `npm start`'s Smaregi stand-in: what the Platform API shows of the
 * point settings a shop must turn off under tillPoints membership (Smaregi's own earning and expiry).
 */
describe('npm run smaregi -- check', () => {
  let stack: LocalStack;
  withDemoStack({ handlerLogs: 'off', smaregi: { tillPoints: 'membership' } }, (made) => {
    ({ stack } = made);
  });
  const check = async () => {
    const lines: string[] = [];
    const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
    const code = await smaregiCommand(['check'], { PORT: new URL(stack.urls.intake).port }, out);
    return { code, lines };
  };

  it('says neither is seen, and exits 0, when no sale carries Smaregi’s own points and no customer has a Smaregi expiry', async () => {
    await seedSmaregiCustomer(stack, { customerId: '1', customerCode: 'C-0001', point: '100' });
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '8001', { newPoint: '0' }));
    const { code, lines } = await check();
    expect([code, lines.at(-1)]).toEqual([0, 'smaregi check: sales=1 own_points=0 customers=1 expiring=0']);
  });

  it('names a sale Smaregi gave its own points for and a customer with a Smaregi expiry, says what to turn off, and exits 1', async () => {
    await seedSmaregiCustomer(stack, { customerId: '2', customerCode: 'C-0002', point: '100', pointExpireDate: '2027-03-31' });
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '8002', { newPoint: '110' }));
    const { code, lines } = await check();
    expect([
      code,
      lines.some((l) => l.startsWith('own earning: ON') && l.includes('8002') && l.includes('ポイント付与')),
      lines.some((l) => l.startsWith('own expiry: ON') && l.includes('2') && l.includes('ポイント有効期限')),
      lines.at(-1),
    ]).toEqual([1, true, true, 'smaregi check: sales=2 own_points=1 customers=2 expiring=1']);
  });
});
