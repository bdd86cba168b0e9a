import { describe, expect, it } from 'vitest';
import { refundMarker } from '../../../../shared/points/index.js';
import { GRANT, purchase, refund, useHarness } from './harness.js';

/**
 * Sibling refunds of one order and the base their shares come from (shared/points/siblings.ts, issue 50):
 * a refund does not work out its share while a sibling's debit, unfinished, may still land, even beyond the
 * in-doubt horizon. Real emulator (`late_commit`, `status` faults) and dynalite; a 120-s horizon as in
 * late-commits.test.ts.
 */
const h = useHarness();
const settings = { inDoubtSeconds: 120 };
const HORIZON_MS = 120_000;
const GRANT_PATH = '^/api/ext/users/[^/]+/points$';

/** Waits (real time, bounded) until the late request has landed in the member's history. */
async function landed(memberId: string, m: string): Promise<void> {
  await expect.poll(() => h.entries(memberId, m), { timeout: 15_000, interval: 100 }).toHaveLength(1);
}

describe('a sibling refund in doubt', () => {
  it("a refund does not work out its share while a sibling's debit may still land after the horizon: the order is debited in full", async () => {
    // Issue 50, chaos seed 1 (customer 145: 186 where 187 was right): r1's debit lands beyond the horizon;
    // r2, computed meanwhile from the book without r1, took floor(50·333/1000) = 16 where 17 is its share
    // once r1 counts (floor(50·666/1000) − 16), and r1 then found its own entry and booked it.
    const p = purchase(); // 50 points on 1000
    await h.processor({ settings }).process(p);
    await h.emulator.addFault({ method: 'POST', path: GRANT_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: 3000 });
    const r1 = refund(p, 'r1', 333);
    const r2 = refund(p, 'r2', 333);
    const m1 = refundMarker(p.source, p.orderId, 'r1');
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'outcome_unknown' });
    h.clock.advance(HORIZON_MS + 1);
    await h.processor({ settings }).process(r2); // the horizon has passed; r1's debit is not in the history yet
    await landed('member-gold', m1);
    // r1's worker dies once it holds the order; its next attempt searches its marker and finds the late entry.
    await h.crashAt('refund:order-claimed', r1);
    h.clock.advance(HORIZON_MS + 60_001);
    await h.processor({ settings }).process(r1);
    await h.processor({ settings }).process(r2);
    expect(await h.entries('member-gold', m1)).toEqual([-16]);
    expect(await h.entries('member-gold', refundMarker(p.source, p.orderId, 'r2'))).toEqual([-17]);
    expect(await h.balance('member-gold')).toBe(50 - 33);
    expect(await h.ledger.getOrder(p)).toMatchObject({ debitTarget: 33, debited: 33 });
  });

  it('a sibling whose debit never lands holds the later refund only until it has sent its debit again after its horizon', async () => {
    const p = purchase();
    await h.processor({ settings }).process(p);
    await h.emulator.addFault({ method: 'POST', path: GRANT_PATH, fault: 'status', status: 502, body: 'bad gateway', times: 1 });
    const [r1, r2] = [refund(p, 'r1', 333), refund(p, 'r2', 333)];
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'outcome_unknown' });
    h.clock.advance(HORIZON_MS + 1);
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'sibling_in_doubt' });
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'debited', points: 16, reconciled: false });
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'debited', points: 17 });
    expect(await h.balance('member-gold')).toBe(50 - 33);
    expect(await h.calls(GRANT)).toBe(3);
  });

  it('two refunds both left in doubt never wait for each other: each debits once', async () => {
    const p = purchase();
    await h.processor({ settings }).process(p);
    await h.emulator.addFault({ method: 'POST', path: GRANT_PATH, fault: 'status', status: 502, body: 'bad gateway', times: 1 });
    const [r1, r3] = [refund(p, 'r1', 333), refund(p, 'r3', 333)];
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'outcome_unknown' });
    await h.crashAt('refund:order-claimed', r3); // r3 dies holding the order: it is in doubt too
    h.clock.advance(HORIZON_MS + 60_001);
    const outcomes = [await h.processor({ settings }).process(r3), await h.processor({ settings }).process(r1)];
    expect(outcomes.map((o) => o.kind)).toEqual(['debited', 'debited']);
    expect(await h.balance('member-gold')).toBe(50 - 33);
  });
});
