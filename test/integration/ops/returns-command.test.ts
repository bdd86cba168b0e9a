import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { opsCommand } from '../../../ops/index.js';
import { withDemoStack } from '../../support/local-stack.js';
import {
  deliverSmaregi,
  seedSmaregiCustomer,
  seedSmaregiTransaction,
  smaregiFixture,
  smaregiTillTransaction,
} from '../../../kit/smaregi.js';

/**
 * `npm run returns` and `npm run ledger -- smaregi unlinked/<id>` against `npm start`'s stack (Smaregi
 * stand-in, emulator, dynalite), returns left to the operator (the default `returns: manual`). taro (gold:
 * 5 %) is Smaregi member C-0001, hanako (gold) C-0002. Each test sells and returns its own product.
 */
describe('npm run returns: a till’s plain returns naming no sale, settled by an operator', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off' }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
    await seedSmaregiCustomer(stack, { customerId: '2', customerCode: 'C-0002', lastName: '花子', firstName: '山田' });
    const hanako = await handle.openapi.getMemberByExternalId('shopify', '1007');
    await handle.openapi.updateMember(hanako.id, { external_ids: { shopify: '1007', smaregi: 'C-0002' } });
  });

  const balance = async (code = 'C-0001') => (await handle.openapi.getMemberByExternalId('smaregi', code)).point;
  const till = async (id: string, o: Parameters<typeof smaregiTillTransaction>[1], returned = false) => {
    await seedSmaregiTransaction(stack, smaregiTillTransaction(id, o, returned));
    expect((await deliverSmaregi(stack, [id])).status).toBe(202);
    await handle.waitForIdle();
  };
  /** An operator's command against the stack (its PORT only): exit code and every line printed. */
  const ops = async (...args: string[]) => {
    const lines: string[] = [];
    const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
    const code = await opsCommand(args, { PORT: new URL(stack.urls.intake).port, USER: 'tanaka' }, out);
    await handle.waitForIdle();
    return { code, text: lines.join('\n') };
  };
  const status = async (id: string) => {
    const shown = await ops('ledger', 'smaregi', `unlinked/${id}`);
    return /till return smaregi \d+: (\w+)/.exec(shown.text)?.[1];
  };

  it('shows a member’s plain return with ledger smaregi unlinked/<id>: store, terminal, time, member, amount and lines', async () => {
    await till('5001', { productId: 'P-5001', storeId: '3', at: '2026-11-30T15:04:05+09:00' }, true);
    const shown = await ops('ledger', 'smaregi', 'unlinked/5001');
    expect(shown.code).toBe(0);
    expect(shown.text).toContain('till return smaregi 5001: open');
    for (const part of ['store:       3', 'terminal:    1', 'at:          2026-11-30T15:04:05+09:00', 'member:      smaregi:C-0001'])
      expect(shown.text).toContain(part);
    expect(shown.text).toContain('amount:      ¥10000 (JPY)');
    expect(shown.text).toContain('lines:       P-5001×1 ¥11000');
  });

  it('lists each open return on one line of returns list', async () => {
    await till('5002', { productId: 'P-5002' }, true);
    const listed = await ops('returns', 'list');
    const rows = listed.text.split('\n').filter((l) => /^500[12] /.test(l));
    expect([listed.code, rows.length, rows.find((r) => r.startsWith('5002'))]).toEqual([0, 2, expect.stringContaining('P-5002×1')]);
  });

  it('applies a return to its sale: takes back the share of the points that sale earned for the returned amount', async () => {
    await till('5010', { productId: 'P-5010', quantity: 2 });
    const before = await balance();
    await till('5011', { productId: 'P-5010', quantity: 1 }, true);
    const applied = await ops('returns', 'apply', '5011', '--sale', '5010');
    const refund = await stack.ledger.getRefund({ source: 'smaregi', orderId: '5010', refundId: 'return-5011' });
    expect([applied.code, refund?.pointsDebited, await balance(), await status('5011')]).toEqual([0, 500, before - 500, 'applied']);
  });

  it('changes nothing when the same return is applied to the same sale again', async () => {
    await till('5020', { productId: 'P-5020' });
    await till('5021', { productId: 'P-5020' }, true);
    await ops('returns', 'apply', '5021', '--sale', '5020');
    const before = await balance();
    const again = await ops('returns', 'apply', '5021', '--sale', '5020');
    expect([again.code, again.text, await balance()]).toEqual([0, expect.stringContaining('already applied to sale 5020'), before]);
  });

  it('refuses to apply a return to another sale once it is applied', async () => {
    await till('5025', { productId: 'P-5025' });
    await till('5026', { productId: 'P-5025' });
    await till('5027', { productId: 'P-5025' }, true);
    await ops('returns', 'apply', '5027', '--sale', '5025');
    const before = await balance();
    const other = await ops('returns', 'apply', '5027', '--sale', '5026');
    expect([other.code, other.text, await balance()]).toEqual([1, 'refused: return 5027 is applied (to sale 5025)', before]);
  });

  it('refuses a return of another member, with the reason, and takes no points', async () => {
    await till('5030', { productId: 'P-5030', customerId: '2' });
    await till('5031', { productId: 'P-5030' }, true);
    const [taro, hanako] = [await balance(), await balance('C-0002')];
    const refused = await ops('returns', 'apply', '5031', '--sale', '5030');
    expect([refused.code, refused.text, await balance(), await balance('C-0002'), await status('5031')]).toEqual([
      1,
      "refused: sale 5030 is not the member's of return 5031",
      taro,
      hanako,
      'open',
    ]);
  });

  it('refuses a return of more money than the sale has left unrefunded', async () => {
    await till('5040', { productId: 'P-5040', unitGross: 5_500 });
    await till('5041', { productId: 'P-5040', unitGross: 11_000 }, true);
    const before = await balance();
    const refused = await ops('returns', 'apply', '5041', '--sale', '5040');
    expect([refused.code, refused.text, await balance(), await status('5041')]).toEqual([
      1,
      'refused: return 5041 gives back ¥10000, more than the ¥5000 of sale 5040 left unrefunded',
      before,
      'open',
    ]);
  });

  it('refuses a return of a product the sale did not have', async () => {
    await till('5050', { productId: 'P-5050' });
    await till('5051', { productId: 'P-OTHER' }, true);
    const refused = await ops('returns', 'apply', '5051', '--sale', '5050');
    expect([refused.code, refused.text, await status('5051')]).toEqual([1, 'refused: sale 5050 has no product P-OTHER', 'open']);
  });

  it('refuses a return of more of a product than the sale sold', async () => {
    await till('5055', { productId: 'P-5055', quantity: 1, unitGross: 5_500 });
    await till('5056', { productId: 'P-5055', quantity: 2, unitGross: 2_200 }, true);
    const refused = await ops('returns', 'apply', '5056', '--sale', '5055');
    expect([refused.code, refused.text]).toEqual([1, 'refused: sale 5055 sold 1 of product P-5055, the return gives back 2']);
  });

  it('dismisses a return without taking points, recording who, why and when, and lists it no more', async () => {
    await till('5060', { productId: 'P-5060' });
    await till('5061', { productId: 'P-5060' }, true);
    const before = await balance();
    const dismissed = await ops('returns', 'dismiss', '5061', '--why', 'exchanged for the same item');
    const shown = await ops('ledger', 'smaregi', 'unlinked/5061');
    const listed = await ops('returns', 'list');
    expect([dismissed.code, await balance(), listed.text.includes('5061 ')]).toEqual([0, before, false]);
    expect(shown.text).toMatch(/dismissed: {3}by tanaka at \d{4}-\d\d-\d\dT[\d:.]+Z: exchanged for the same item/);
  });

  it('refuses to apply a dismissed return', async () => {
    await till('5070', { productId: 'P-5070' });
    await till('5071', { productId: 'P-5070' }, true);
    await ops('returns', 'dismiss', '5071', '--why', 'staff error');
    const before = await balance();
    const refused = await ops('returns', 'apply', '5071', '--sale', '5070');
    expect([refused.code, refused.text, await balance()]).toEqual([1, 'refused: return 5071 is dismissed', before]);
  });

  it('refuses apply without --sale, naming the usage, and changes nothing', async () => {
    await till('5081', { productId: 'P-5081' }, true);
    const refused = await ops('returns', 'apply', '5081');
    expect([refused.code, refused.text.split('\n')[0], await status('5081')]).toEqual([
      2,
      'apply takes --sale <transaction id> (1-20 digits)',
      'open',
    ]);
  });
});
