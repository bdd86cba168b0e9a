import { describe, expect, it } from 'vitest';
import { type AuditResult, type ReversalStep, shortfallEntryId, summaryLine } from '../../../../shared/audit/index.js';
import { createProcessor, refundMarker, reversalMarker } from '../../../../shared/points/index.js';
import { GRANT, purchase, refund, SimulatedCrash, useHarness } from '../points/harness.js';
import { useAuditTable } from './audit-table.js';

/**
 * Issue 50, chaos seed 9: a refund's debit committed beyond the horizon and sent again leaves the member
 * two entries of its marker until the audit reverses one. A clamp of another order's refund meanwhile
 * took too little because of the extra entry; the audit that gives the extra back settles that shortfall,
 * so the member ends where no double would have left them. Real emulator and dynalite, a table per test.
 */
const h = useHarness();
const GOLD = 'member-gold';

const t = useAuditTable(h, 'shortfalls');

/** `crashAt`: the run dies at that checkpoint's `nth` reaching (the extra's reversal reaches each first). */
function audit(crashAt?: { step: ReversalStep; nth: number }): Promise<AuditResult> {
  let reached = 0;
  return t.audit({
    checkpoint: (step) => {
      if (step === crashAt?.step && ++reached === crashAt?.nth) throw new SimulatedCrash(step);
    },
  });
}

/**
 * Two orders of one member (50 points each); order A's refund debited 16 and its marker landed a second
 * time (a request applied after every horizon); the member spent 34 at the till; order B's cancellation
 * (target 50) then met 34 held and clamped: 16 short, all of it the extra entry's doing.
 */
async function clampBesideDouble(): Promise<{ b: ReturnType<typeof purchase> }> {
  const [a, b] = [purchase(), purchase()];
  await t.processAll(a, b);
  const ra = refund(a, 'ra', 333);
  await t.processAll(ra);
  await h.api.grantPoints(GOLD, { point: -16, remarks: refundMarker('shopify', a.orderId, 'ra') });
  await h.api.grantPoints(GOLD, { point: -34, title: 'spent at the till' });
  await t.processAll(refund(b, 'cancel', 1000));
  expect(await t.ledger.getRefund({ source: 'shopify', orderId: b.orderId, refundId: 'cancel' })).toMatchObject({
    outcome: 'insufficient_points',
    pointsDebited: 34,
    shortfall: 16,
  });
  return { b };
}

describe("the audit settles a clamp a double beyond the horizon caused, when it reverses the double's extra debit", () => {
  it('leaves the member the balance they would hold had the debit never been doubled', async () => {
    await clampBesideDouble();
    await audit();
    // No double: 100 - 16 - 34 = 50 held, and the cancellation's full 50 taken.
    expect(await h.balance(GOLD)).toBe(0);
  });

  it("records the settled points on the clamped refund's record, which then reads debited", async () => {
    const { b } = await clampBesideDouble();
    await audit();
    expect(await t.ledger.getRefund({ source: 'shopify', orderId: b.orderId, refundId: 'cancel' })).toMatchObject({
      outcome: 'debited',
      pointsDebited: 34,
      shortfall: 0,
      shortfallSettled: 16,
    });
  });

  it('changes nothing on a second run right after, and exits clean', async () => {
    await clampBesideDouble();
    await audit();
    const grants = await h.calls(GRANT);
    const second = await audit();
    expect(second.findings).toEqual([]);
    expect(summaryLine(second)).toBe('audit: orders=2 refunds=2 drift=0 duplicates=0 reversed=0');
    expect(await h.calls(GRANT)).toBe(grants);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it("heals seed 9's chain: a debit committed beyond the horizon and sent again, then another order's clamp", async () => {
    const [a, b] = [purchase(), purchase()];
    await t.processAll(a, b);
    const processor = createProcessor({ ledger: t.ledger, openapi: h.api, clock: h.clock, settings: t.settings() });
    const grant = { method: 'POST', path: '^/api/ext/users/[^/]+/points$' };
    await h.emulator.addFault({ ...grant, fault: 'late_commit', answer: 'reset', commit_after_ms: 2000, times: 1 });
    const ra = refund(a, 'ra', 333);
    expect(await processor.process(ra, { receiveCount: 1 })).toMatchObject({ kind: 'outcome_unknown' });
    h.passHorizon();
    expect(await processor.process(ra, { receiveCount: 1 })).toMatchObject({ kind: 'debited', points: 16 });
    await expect.poll(() => h.entries(GOLD, refundMarker('shopify', a.orderId, 'ra')), { timeout: 10_000 }).toEqual([-16, -16]);
    await h.api.grantPoints(GOLD, { point: -34, title: 'spent at the till' });
    expect(await processor.process(refund(b, 'cancel', 1000), { receiveCount: 1 })).toMatchObject({
      kind: 'insufficient_points',
      shortfall: 16,
    });
    await audit();
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('finishes a settlement whose run died between its call and its record, without taking twice', async () => {
    const { b } = await clampBesideDouble();
    await expect(audit({ step: 'reversal:granted', nth: 2 })).rejects.toThrow(SimulatedCrash);
    const marker = reversalMarker('shopify', shortfallEntryId(b.orderId, 'cancel'));
    expect(await h.entries(GOLD, marker)).toEqual([-16]);
    const grants = await h.calls(GRANT);
    h.expireLeases();
    await audit();
    expect(await h.calls(GRANT)).toBe(grants);
    expect(await h.entries(GOLD, marker)).toEqual([-16]);
    expect(await t.ledger.getRefund({ source: 'shopify', orderId: b.orderId, refundId: 'cancel' })).toMatchObject({ shortfallSettled: 16 });
  });

  it('takes no more than the extra debit gave back when the clamp was short by more', async () => {
    const [a, b] = [purchase(), purchase()];
    await t.processAll(a, b);
    await t.processAll(refund(a, 'ra', 333));
    await h.api.grantPoints(GOLD, { point: -16, remarks: refundMarker('shopify', a.orderId, 'ra') });
    await h.api.grantPoints(GOLD, { point: -60, title: 'spent at the till' }); // 100 - 16 - 16 - 60 = 8
    await t.processAll(refund(b, 'cancel', 1000)); // 50 asked, 8 held: 42 short, 16 of them the double's
    await audit();
    expect(await t.ledger.getRefund({ source: 'shopify', orderId: b.orderId, refundId: 'cancel' })).toMatchObject({
      outcome: 'insufficient_points',
      shortfall: 26,
      shortfallSettled: 16,
    });
  });

  it('leaves a clamp booked before the extra entry landed as it was', async () => {
    const [a, b] = [purchase(), purchase()];
    await t.processAll(a, b);
    await t.processAll(refund(a, 'ra', 333));
    await h.api.grantPoints(GOLD, { point: -50, title: 'spent at the till' }); // 100 - 16 - 50 = 34
    await t.processAll(refund(b, 'cancel', 1000)); // 50 asked, 34 held: 16 short, before any double
    await h.api.grantPoints(GOLD, { point: 16, title: 'bought points' });
    await h.api.grantPoints(GOLD, { point: -16, remarks: refundMarker('shopify', a.orderId, 'ra') });
    await audit();
    // The extra -16 is given back; the clamp's 16 short was not its doing and stays short.
    expect(await h.balance(GOLD)).toBe(16);
  });
});
