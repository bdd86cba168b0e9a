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

  it('two refunds both left in doubt never wait for each other: the one whose worker died waits for the one that sent, then each debits once', async () => {
    const p = purchase();
    await h.processor({ settings }).process(p);
    await h.emulator.addFault({ method: 'POST', path: GRANT_PATH, fault: 'status', status: 502, body: 'bad gateway', times: 1 });
    const [r1, r3] = [refund(p, 'r1', 333), refund(p, 'r3', 333)];
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'outcome_unknown' });
    await h.crashAt('refund:order-claimed', r3); // r3 dies holding the order: it is in doubt too
    h.clock.advance(HORIZON_MS + 60_001);
    const kinds = [];
    for (const r of [r3, r1, r3, r1]) kinds.push((await h.processor({ settings }).process(r)).kind);
    expect(kinds).toEqual(['outcome_unknown', 'debited', 'debited', 'duplicate']);
    expect(await h.balance('member-gold')).toBe(50 - 33);
  });
});

/**
 * The double fault (issue 50's note): the worker dies while a refund waits for its sibling. r1's debit is
 * answered with a reset and applied later (a `late_commit`); r2, past r1's horizon, finds r1 unfinished and
 * waits, and its worker dies there, holding the order (before giving it back) or just after.
 */
describe('a refund whose worker dies while it waits for its sibling', () => {
  /** The order and both refunds finished: no lease held, nothing left in doubt. */
  async function nothingLocked(p: ReturnType<typeof purchase>): Promise<void> {
    const order = await h.ledger.getOrder(p);
    expect(order).toMatchObject({ debitTarget: 33, debited: 33, refundsInDoubt: [] });
    expect(order?.leaseOwner).toBeUndefined();
    for (const refundId of ['r1', 'r2']) {
      expect(await h.ledger.getRefund({ ...p, refundId }), refundId).toMatchObject({ state: 'done' });
    }
  }

  /** r1 in doubt with its debit applied `commitAfterMs` later; r2's worker dies at `step` while it waits for r1. */
  async function r2DiesWaiting(step: 'refund:sibling-wait' | 'refund:order-given-back', commitAfterMs: number) {
    const p = purchase(); // 50 points on 1000
    await h.processor({ settings }).process(p);
    await h.emulator.addFault({ method: 'POST', path: GRANT_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: commitAfterMs });
    const [r1, r2] = [refund(p, 'r1', 333), refund(p, 'r2', 333)];
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'outcome_unknown' });
    h.clock.advance(HORIZON_MS + 1);
    await h.crashAt(step, r2);
    h.clock.advance(HORIZON_MS + 60_001); // past r2's lease and the horizon of anything it might have sent
    const markers = { m1: refundMarker(p.source, p.orderId, 'r1'), m2: refundMarker(p.source, p.orderId, 'r2') };
    return { p, r1, r2, ...markers };
  }

  it("dying before it gave the order back, it still waits on its retry: once the sibling's late debit lands, each refund is debited its share once", async () => {
    const { p, r1, r2, m1, m2 } = await r2DiesWaiting('refund:sibling-wait', 4000);
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'sibling_in_doubt' });
    await landed('member-gold', m1);
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'debited', points: 16, reconciled: true });
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'debited', points: 17 });
    expect(await h.entries('member-gold', m1)).toEqual([-16]);
    expect(await h.entries('member-gold', m2)).toEqual([-17]);
    expect(await h.balance('member-gold')).toBe(50 - 33);
    await nothingLocked(p);
  });

  it('dying before it gave the order back, it waits until the sibling has sent its debit again: the late entry is an equal second one for the audit', async () => {
    const { p, r1, r2, m1, m2 } = await r2DiesWaiting('refund:sibling-wait', 8000);
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'sibling_in_doubt' });
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'debited', points: 16 });
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'debited', points: 17 });
    await expect.poll(() => h.entries('member-gold', m1), { timeout: 20_000, interval: 200 }).toEqual([-16, -16]);
    expect(await h.entries('member-gold', m2)).toEqual([-17]);
    await nothingLocked(p);
  });

  it('dying just after it gave the order back, it waits on its retry and then debits its share once', async () => {
    const { p, r1, r2, m1, m2 } = await r2DiesWaiting('refund:order-given-back', 4000);
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'sibling_in_doubt' });
    await landed('member-gold', m1);
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'debited', points: 16, reconciled: true });
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'debited', points: 17 });
    expect(await h.entries('member-gold', m2)).toEqual([-17]);
    await nothingLocked(p);
  });
});
