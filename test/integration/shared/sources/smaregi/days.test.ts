import { describe, expect, it } from 'vitest';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { smaregiTransaction } from '../../../../../kit/smaregi.js';
import { useHarness } from '../../points/harness.js';
import { useTillMember } from '../../../../support/smaregi-membership.js';
import { ledgerReport } from '../../../../../ops/ledger-report.js';

/**
 * A Smaregi source's return period, `earnAfter: {"days": 14}` (issue 53), on the real emulator, dynalite
 * and the Smaregi stand-in over HTTP: the sale's points are provisional until 14 days after it and
 * credited once by the due tick on the sale's state then. The gold member (5 %) is the till's customer
 * `cust-gold`; the ¥11,000 sale (¥1,000 tax inside) earns 500 points.
 */
const h = useHarness();
const member = useTillMember(h);
const { till } = member;
const DAY_MS = 86_400_000;
const GOLD = 'member-gold';

const settingsOf = (extra: Record<string, unknown> = {}) =>
  SmaregiSettings.parse({ contractId: 'c1', externalKey: 'shopify', earnAfter: { days: 14 }, ...extra });
const processor = () => member.processor({ mirrors: false, returns: false });
const deliver = (id: string, action: string, settings = settingsOf()) =>
  processor().process(smaregiThinEvent(id, 'smaregi', settings, h.clock(), action));
const rungAt = new Map<string, string>();
/** The sale as the till holds it: ¥11,000 (or `yen`) with a tenth of it tax inside, rung up at its first call's clock. */
function sale(id: string, changes: { yen?: number; spendPoint?: string; cancelDivision?: string; noMember?: boolean } = {}) {
  const at = rungAt.get(id) ?? new Date(h.clock()).toISOString();
  rungAt.set(id, at);
  const tx = smaregiTransaction('transaction-sale-tax-included.json', id, {
    customerCode: 'cust-gold',
    terminalTranDateTime: at,
    transactionDateTime: at,
    spendPoint: changes.spendPoint ?? '0',
    cancelDivision: changes.cancelDivision ?? '0',
    ...(changes.noMember ? { customerCode: null, customerId: null } : {}),
  });
  const yen = changes.yen ?? 11_000;
  for (const line of tx.details as Record<string, unknown>[])
    Object.assign(line, { unitDiscountedSum: String(yen), taxIncludeProportional: String(yen / 11) });
  Object.assign(tx, { total: String(yen), subtotal: String(yen), taxInclude: String(yen / 11) });
  till.standIn.putTransaction(tx as never);
}
/** An edit (or a void) of a sale already rung up: it keeps its time. */
const change = sale;
const marker = (orderId: string) => `lp1:smaregi:order:${encodeURIComponent(orderId)}`;
const earned = async (id: string) => [
  await h.entries(GOLD, marker(id)),
  await h.entries(GOLD, marker(`${id}/up-1`)),
  (await h.ledger.getOrder({ source: 'smaregi', orderId: id }))?.outcome,
];

describe('a Smaregi sale under earnAfter {"days": 14}', () => {
  it('earns nothing at the sale and 500 points once at the due tick, though the tick and the sale come again', async () => {
    sale('7001');
    expect(await deliver('7001', 'created')).toMatchObject({ kind: 'pending_earn', action: 'ack' });
    expect(await earned('7001')).toEqual([[], [], 'pending_earn']);
    h.clock.advance(13 * DAY_MS);
    expect(await processor().creditDueEarns()).toMatchObject({ done: 0 });
    h.clock.advance(2 * DAY_MS);
    expect(await processor().creditDueEarns()).toMatchObject({ done: 1, retry: 0 });
    expect(await processor().creditDueEarns()).toMatchObject({ due: 0 });
    await deliver('7001', 'created');
    expect(await earned('7001')).toEqual([[500], [], 'credited']);
  });

  it('earns nothing ever for a sale voided before the day', async () => {
    sale('7002');
    await deliver('7002', 'created');
    change('7002', { cancelDivision: '1' });
    await deliver('7002', 'edited');
    h.clock.advance(15 * DAY_MS);
    await processor().creditDueEarns();
    await deliver('7002', 'edited');
    expect(await earned('7002')).toEqual([[], [], 'not_earned']);
  });

  it('earns the lowered amount once, with nothing taken back, when an edit lowers the sale before the day', async () => {
    sale('7003');
    await deliver('7003', 'created');
    change('7003', { yen: 5_500 });
    expect(await deliver('7003', 'edited')).toMatchObject({ kind: 'pending_earn' });
    await deliver('7003', 'edited');
    h.clock.advance(15 * DAY_MS);
    await processor().creditDueEarns();
    expect([...(await earned('7003')), await h.entries(GOLD, `lp1:smaregi:refund:7003:adj-5000`)]).toEqual([[250], [], 'credited', []]);
  });

  it('earns the raised amount once, with no supplement, when an edit raises the sale before the day', async () => {
    sale('7004', { yen: 5_500 });
    await deliver('7004', 'created');
    change('7004', { yen: 11_000 });
    await deliver('7004', 'edited');
    h.clock.advance(15 * DAY_MS);
    await processor().creditDueEarns();
    expect(await earned('7004')).toEqual([[500], [], 'credited']);
  });

  it('takes the difference back as today when an edit lowers the sale after the day', async () => {
    sale('7005');
    await deliver('7005', 'created');
    h.clock.advance(15 * DAY_MS);
    await processor().creditDueEarns();
    change('7005', { yen: 5_500 });
    expect(await deliver('7005', 'edited')).toMatchObject({ kind: 'duplicate', followUps: [{ kind: 'debited', points: 250 }] });
  });

  it('ends the sale not_earned for want of a member at the day when staff took the member off before it', async () => {
    sale('7006');
    await deliver('7006', 'created');
    change('7006', { noMember: true });
    await deliver('7006', 'edited');
    h.clock.advance(15 * DAY_MS);
    expect(await processor().creditDueEarns()).toMatchObject({ due: 1, done: 1 });
    expect(await processor().creditDueEarns()).toMatchObject({ due: 0 });
    const order = await h.ledger.getOrder({ source: 'smaregi', orderId: '7006' });
    expect([await h.entries(GOLD, marker('7006')), order?.outcome, order?.reason]).toEqual([[], 'not_earned', 'no_member']);
  });

  it('shows the sale that ended for want of a member as not_earned / no_member in npm run ledger', async () => {
    sale('7007');
    await deliver('7007', 'created');
    change('7007', { noMember: true });
    await deliver('7007', 'edited');
    h.clock.advance(15 * DAY_MS);
    await processor().creditDueEarns();
    const report = await ledgerReport(h.ledger, h.api, 'smaregi', '7007');
    expect(report.lines).toEqual(expect.arrayContaining(['    outcome: not_earned', '    reason: no_member']));
  });

  it('earns 500 points once at the day when an edit before it put the member back', async () => {
    sale('7008');
    await deliver('7008', 'created');
    change('7008', { noMember: true });
    await deliver('7008', 'edited');
    h.clock.advance(5 * DAY_MS);
    change('7008');
    await deliver('7008', 'edited');
    h.clock.advance(10 * DAY_MS);
    await processor().creditDueEarns();
    await processor().creditDueEarns();
    expect(await earned('7008')).toEqual([[500], [], 'credited']);
  });

  it('earns 500 points once when staff put the member back after the day, within the late-member window', async () => {
    sale('7009');
    await deliver('7009', 'created');
    change('7009', { noMember: true });
    await deliver('7009', 'edited');
    h.clock.advance(15 * DAY_MS);
    await processor().creditDueEarns();
    h.clock.advance(3 * DAY_MS);
    change('7009');
    await deliver('7009', 'edited');
    await deliver('7009', 'edited');
    expect(await earned('7009')).toEqual([[500], [], 'credited']);
  });
});
