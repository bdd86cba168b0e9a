import { describe, expect, it } from 'vitest';
import type { QueueMessage } from '../../../../../shared/queue/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { smaregiTillTransaction } from '../../../../../kit/smaregi.js';
import { applyReturn } from '../../../../../ops/returns-command.js';
import { useHarness } from '../../points/harness.js';
import { useTillMember } from '../../../../support/smaregi-membership.js';

/**
 * A till's plain return (返品販売, naming no sale) of a sale still waiting for its day under
 * `earnAfter: {"days": 14}` (issue 53), on the real emulator, dynalite and the Smaregi stand-in: the return
 * reduces what the sale will earn (a refund before the moment), a full one means it never earns, and at the
 * day the remainder is credited once. The gold member (5 %) is the till's customer `cust-gold`; a sale of
 * 2 × ¥11,000 (tax inside) earns 1,000 points, one item returned takes 500 of them.
 */
const h = useHarness();
const member = useTillMember(h);
const { till, tillReturns } = member;
const DAY_MS = 86_400_000;
const GOLD = 'member-gold';

const settingsOf = (returns: 'auto' | 'manual') =>
  SmaregiSettings.parse({ contractId: 'c1', externalKey: 'shopify', earnAfter: { days: 14 }, returns });
const processor = () => member.processor({ mirrors: false });
/** The till transaction (a sale of `quantity`, or a plain return of them) rung up now and delivered. */
async function ring(id: string, productId: string, quantity: number, returned: boolean, returns: 'auto' | 'manual' = 'auto') {
  const tx = smaregiTillTransaction(id, { productId, quantity, at: new Date(h.clock()).toISOString() }, returned);
  till.standIn.putTransaction({ ...tx, customerCode: 'cust-gold' } as never);
  return deliver(id, returns);
}
const deliver = (id: string, returns: 'auto' | 'manual' = 'auto') =>
  processor().process(smaregiThinEvent(id, 'smaregi', settingsOf(returns), h.clock(), 'created'));
const marker = (orderId: string) => `lp1:smaregi:order:${encodeURIComponent(orderId)}`;
const outcome = async (id: string) => (await h.ledger.getOrder({ source: 'smaregi', orderId: id }))?.outcome;
/** The due tick at the day, run twice (a second tick, or a second worker, changes nothing). */
async function dayComes() {
  h.clock.advance(15 * DAY_MS);
  await processor().creditDueEarns();
  await processor().creditDueEarns();
}

describe('a plain till return of a Smaregi sale still waiting for its day', () => {
  it('leaves the sale 500 of its 1,000 points, earned once at the day, when half of it was returned before (returns: auto)', async () => {
    await ring('7101', 'D-7101', 2, false);
    h.clock.advance(3 * DAY_MS);
    await ring('7102', 'D-7101', 1, true);
    const before = await h.balance(GOLD);
    await dayComes();
    expect([await h.balance(GOLD), await outcome('7101'), (await tillReturns().get('smaregi', '7102'))?.status]).toEqual([
      before + 500,
      'credited',
      'applied',
    ]);
  });

  it('never grants the sale anything and ends it not_earned when all of it was returned before the day', async () => {
    await ring('7111', 'D-7111', 2, false);
    h.clock.advance(3 * DAY_MS);
    await ring('7112', 'D-7111', 2, true);
    await dayComes();
    expect([await h.entries(GOLD, marker('7111')), await outcome('7111')]).toEqual([[], 'not_earned']);
  });

  it('counts a return delivered twice before the day once: the sale still earns 500 at the day', async () => {
    await ring('7121', 'D-7121', 2, false);
    h.clock.advance(3 * DAY_MS);
    await ring('7122', 'D-7121', 1, true);
    await deliver('7122');
    const before = await h.balance(GOLD);
    await dayComes();
    expect(await h.balance(GOLD)).toBe(before + 500);
  });

  it('takes nothing more when a return applied before the day is delivered again after it', async () => {
    await ring('7151', 'D-7151', 2, false);
    h.clock.advance(3 * DAY_MS);
    await ring('7152', 'D-7151', 1, true);
    await dayComes();
    const before = await h.balance(GOLD);
    await deliver('7152');
    expect(await h.balance(GOLD)).toBe(before);
  });

  it('takes 500 back as today when half of the sale is returned after its day', async () => {
    await ring('7131', 'D-7131', 2, false);
    await dayComes();
    const before = await h.balance(GOLD);
    await ring('7132', 'D-7131', 1, true);
    expect([await h.balance(GOLD), await h.entries(GOLD, marker('7131'))]).toEqual([before - 500, [1000]]);
  });

  it('lets an operator apply a half return before the day by hand (returns: manual): 500 earned at the day once', async () => {
    await ring('7141', 'D-7141', 2, false, 'manual');
    h.clock.advance(3 * DAY_MS);
    await ring('7142', 'D-7141', 1, true, 'manual');
    const queued: QueueMessage[] = [];
    const target = { tillReturns: tillReturns(), ledger: h.ledger, queue: { send: async (m: QueueMessage) => void queued.push(m) } };
    const printed: string[] = [];
    const code = await applyReturn(target, { source: 'smaregi', returnId: '7142', saleId: '7141', by: 'tanaka' }, (l) => printed.push(l));
    // The worker runs what the command queued.
    for (const m of queued) await processor().process(JSON.parse(m.body));
    const before = await h.balance(GOLD);
    await dayComes();
    expect([code, printed, await h.balance(GOLD)]).toEqual([
      0,
      [expect.stringContaining('applied return 7142 to sale 7141')],
      before + 500,
    ]);
  });
});
