import { describe, expect, it } from 'vitest';
import {
  auditLedger,
  type AuditResult,
  reversalDepsOf,
  type ReversalStep,
  scanLedger,
  summaryLine,
} from '../../../../shared/audit/index.js';
import { createRedemptionLedger, createReversalLedger } from '../../../../shared/ledger/index.js';
import { createProcessor, purchaseMarker, redemptionMarker, refundMarker, reversalMarker } from '../../../../shared/points/index.js';
import { GRANT, IN_DOUBT_SECONDS, LEASE_SECONDS, purchase, refund, SimulatedCrash, useHarness } from '../points/harness.js';
import { useAuditTable } from './audit-table.js';

/**
 * The audit heals the ledger (issue 50 item 6): each extra entry of a marker of ours found more than once
 * in a member's history is reversed exactly once, through the protocol (claim, search, act, record),
 * against the real emulator and dynalite. Each test its own ledger table.
 */
const h = useHarness();
const GOLD = 'member-gold';

const t = useAuditTable(h, 'reversal');

function audit(options: { policy?: 'clamp' | 'park'; crashAt?: ReversalStep } = {}): Promise<AuditResult> {
  return t.audit({
    policy: options.policy,
    checkpoint: (step) => {
      if (step === options.crashAt) throw new SimulatedCrash(`crash at ${step}`);
    },
  });
}

const reversals = () => createReversalLedger({ client: h.dynamo.documentClient, tableName: t.tableName, clock: h.clock });

/** A credited purchase whose marker a second grant carries (what a request applied after every horizon leaves). */
async function doubledCredit(): Promise<{ orderId: string; marker: string; extraId: string }> {
  const p = purchase();
  await t.processAll(p);
  const marker = purchaseMarker('shopify', p.orderId);
  await h.api.grantPoints(GOLD, { point: 50, remarks: marker });
  const history = await h.api.listPoints(GOLD, { perPage: 1000 });
  const ids = history.points.filter((e) => e.remarks === marker).map((e) => Number(e.id));
  return { orderId: p.orderId, marker, extraId: String(Math.max(...ids)) };
}

describe('the audit reverses duplicates', () => {
  it('keeps the entry the ledger booked when two entries of a marker differ, and reverses the other', async () => {
    // A purchase credited and booked at 50; an earlier attempt's request, applied late and at another size
    // (30), stands before it in the history.
    const p = purchase();
    const marker = purchaseMarker('shopify', p.orderId);
    await h.api.grantPoints(GOLD, { point: 30, remarks: marker });
    h.clock.advance(1000);
    await t.processAll(p);
    const order = await t.ledger.getOrder(p);
    // The ledger booked the credit its answer gave; the audit must not take that one back.
    const history = await h.api.listPoints(GOLD, { perPage: 1000 });
    const lateId = history.points.find((e) => e.remarks === marker && e.point === 30)?.id;
    const result = await audit();
    expect(result).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(order).toMatchObject({ outcome: 'credited' });
    expect((await reversals().get('shopify', GOLD, String(lateId)))?.state).toBe('done');
    expect(await h.balance(GOLD)).toBe(50);
    const again = await audit();
    expect(again).toMatchObject({ duplicates: 0, reversed: 0 });
    expect(await h.balance(GOLD)).toBe(50);
  });

  it("keeps a refund's debit of its full share when a late entry of its marker is a point short, and corrects its record to debited", async () => {
    // Issue 50, chaos seed 6: an attempt's debit, computed from a base a sibling's late commit made stale
    // (a point less), lands beyond the horizon; the refund's share was debited again meanwhile and its
    // answer lost. The retry finds the marker twice and books the newest (a point short).
    const p = purchase();
    await t.processAll(p);
    const x = refund(p, 'x', 333); // 5% of 1000 = 50 points; a third of the amount: 16
    const marker = refundMarker('shopify', p.orderId, 'x');
    const crashing = createProcessor({
      ledger: t.ledger,
      openapi: h.api,
      clock: h.clock,
      settings: t.settings(),
      checkpoint: (step) => {
        if (step === 'refund:granted') throw new SimulatedCrash(step);
      },
    });
    await expect(crashing.process(x, { receiveCount: 1 })).rejects.toThrow(SimulatedCrash);
    await h.api.grantPoints(GOLD, { point: -15, remarks: marker }); // the late commit of the stale attempt
    h.clock.advance((LEASE_SECONDS + IN_DOUBT_SECONDS) * 1000 + 1);
    await t.processAll(x);
    expect(await h.entries(GOLD, marker)).toEqual([-15, -16]);
    const result = await audit();
    expect(result).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.balance(GOLD)).toBe(50 - 16);
    expect(await t.ledger.getRefund({ source: 'shopify', orderId: p.orderId, refundId: 'x' })).toMatchObject({
      outcome: 'debited',
      pointsDebited: 16,
      debitTarget: 16,
      shortfall: 0,
    });
    const order = await t.ledger.getOrder(p);
    expect(order).toMatchObject({ debited: 16, debitTarget: 16 });
    expect(order?.refunds.x).toMatchObject({ debited: 16, target: 16 });
    expect(await audit()).toMatchObject({ findings: [], notes: [], duplicates: 0, reversed: 0 });
  });

  it("keeps the entry nearest a refund's target, not the clamped debit it booked beside a late one a point off", async () => {
    // Issue 50, chaos seed 1 on the final code: a debit a point under the target (its base made stale by a
    // sibling) landed beyond the horizon; the refund's own attempt then met the points it had taken, clamped
    // to what was left and booked that. Kept by its booked size, the refund stayed short by its whole share.
    const p = purchase();
    await t.processAll(p);
    const x = refund(p, 'x', 333); // a third of the amount: 16 of 50
    const marker = refundMarker('shopify', p.orderId, 'x');
    await h.api.grantPoints(GOLD, { point: -34, remarks: 'spent elsewhere' });
    await h.api.grantPoints(GOLD, { point: -15, remarks: marker }); // the stale attempt's late commit
    await t.processAll(x); // 16 asked, 1 held: clamped to 1
    expect((await h.entries(GOLD, marker)).sort((a, b) => a - b)).toEqual([-15, -1]);
    expect(await audit()).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.balance(GOLD)).toBe(50 - 34 - 15);
    expect(await t.ledger.getRefund({ source: 'shopify', orderId: p.orderId, refundId: 'x' })).toMatchObject({ pointsDebited: 15 });
  });

  it("heals a sibling's debit committed beyond its horizon and sent again meanwhile: the later refund's share counts it", async () => {
    // Issue 50: r1's debit is answered with a reset and applied 3 s later; the horizon passes first, so r1
    // sends it again (from the same base, r2 waiting for it), and the late request makes a second entry.
    const p = purchase();
    await t.processAll(p);
    const processor = createProcessor({ ledger: t.ledger, openapi: h.api, clock: h.clock, settings: t.settings() });
    await h.emulator.addFault({
      method: 'POST',
      path: '^/api/ext/users/[^/]+/points$',
      fault: 'late_commit',
      answer: 'reset',
      commit_after_ms: 3000,
    });
    const [r1, r2] = [refund(p, 'r1', 333), refund(p, 'r2', 333)];
    const m1 = refundMarker('shopify', p.orderId, 'r1');
    expect(await processor.process(r1, { receiveCount: 1 })).toMatchObject({ kind: 'outcome_unknown' });
    h.passHorizon();
    expect(await processor.process(r2, { receiveCount: 1 })).toMatchObject({ kind: 'outcome_unknown', errorKind: 'sibling_in_doubt' });
    expect(await processor.process(r1, { receiveCount: 1 })).toMatchObject({ kind: 'debited', points: 16 });
    await expect.poll(() => h.entries(GOLD, m1), { timeout: 15_000 }).toEqual([-16, -16]);
    expect(await processor.process(r2, { receiveCount: 1 })).toMatchObject({ kind: 'debited', points: 17 });
    expect(await audit()).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.balance(GOLD)).toBe(50 - 33);
    expect(await audit()).toMatchObject({ findings: [], notes: [], duplicates: 0, reversed: 0 });
  });

  it('reverses the extra entry of a doubled credit once, counts it as drift, and records the reversal', async () => {
    const { orderId, marker, extraId } = await doubledCredit();
    expect(await h.balance(GOLD)).toBe(100);
    const result = await audit();
    expect(result).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(result.findings).toEqual([expect.objectContaining({ kind: 'duplicate_credit', orderId, customerId: GOLD, marker })]);
    expect(result.findings[0]!.detail).toContain(`extra entry ${extraId} (+50) reversed (${reversalMarker('shopify', extraId)})`);
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-50]);
    expect(await h.balance(GOLD)).toBe(50);
    expect(await reversals().get('shopify', GOLD, extraId)).toMatchObject({
      state: 'done',
      outcome: 'reversed',
      pointsReversed: 50,
      shortfall: 0,
      duplicatedMarker: marker,
      orderId,
    });
  });

  it('reverses nothing on a second run right after, and finds no drift', async () => {
    const { extraId } = await doubledCredit();
    await audit();
    const grants = await h.calls(GRANT);
    const second = await audit();
    expect(second.findings).toEqual([]);
    expect(second.notes).toEqual([]);
    expect(summaryLine(second)).toBe('audit: orders=1 refunds=0 drift=0 duplicates=0 reversed=0');
    expect(await h.calls(GRANT)).toBe(grants);
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-50]);
  });

  it('ends its last line with the duplicates found and reversed', async () => {
    await doubledCredit();
    expect(summaryLine(await audit())).toBe('audit: orders=1 refunds=0 drift=1 duplicates=1 reversed=1');
  });

  it("gives back a redemption's deduction applied twice, for a member with no order in the ledger", async () => {
    await h.api.grantPoints(GOLD, { point: 700, title: 'opening balance' });
    const redemptions = createRedemptionLedger({ client: h.dynamo.documentClient, tableName: t.tableName, clock: h.clock });
    const started = await redemptions.start(
      {
        source: 'shopify',
        customerId: 'cust-gold',
        memberId: GOLD,
        requestId: 'req-1',
        points: 300,
        value: '300',
        currency: 'JPY',
        code: 'PTS-DOUBLED00001',
        expiresAt: new Date(h.clock() + 86_400_000).toISOString(),
      },
      'maker',
    );
    expect(started.created).toBe(true);
    const marker = redemptionMarker('shopify', 'cust-gold', 'req-1');
    // The deduction, and the same request applied again later (a slow answer during a sale).
    await h.api.grantPoints(GOLD, { point: -300, remarks: marker });
    await h.api.grantPoints(GOLD, { point: -300, remarks: marker });
    expect(await h.balance(GOLD)).toBe(100);
    const result = await audit();
    expect(result).toMatchObject({ orders: 0, duplicates: 1, reversed: 1 });
    expect(result.findings).toEqual([expect.objectContaining({ kind: 'duplicate_entry', customerId: GOLD, marker })]);
    expect(await h.balance(GOLD)).toBe(400);
    expect(await audit()).toMatchObject({ findings: [], duplicates: 0, reversed: 0 });
  });

  it('takes what the member holds when too few points are left (clamp) and records the shortfall', async () => {
    const { extraId } = await doubledCredit();
    await h.api.grantPoints(GOLD, { point: -80, title: 'spent at the till' }); // 100 -> 20
    const result = await audit({ policy: 'clamp' });
    expect(result).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(result.findings[0]!.detail).toContain('20 taken, 30 short');
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-20]);
    expect(await h.balance(GOLD)).toBe(0);
    expect(await reversals().get('shopify', GOLD, extraId)).toMatchObject({
      state: 'done',
      outcome: 'insufficient_points',
      pointsReversed: 20,
      shortfall: 30,
    });
    // Recorded once: the next run takes nothing more, and keeps saying what is short.
    const next = await audit({ policy: 'clamp' });
    expect(next).toMatchObject({ findings: [], duplicates: 0, reversed: 0 });
    expect(next.notes).toEqual([expect.objectContaining({ kind: 'reversal_short', customerId: GOLD })]);
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-20]);
  });

  it('takes nothing when too few points are left under the park policy, and records the whole shortfall', async () => {
    const { extraId } = await doubledCredit();
    await h.api.grantPoints(GOLD, { point: -80, title: 'spent at the till' });
    expect(await audit({ policy: 'park' })).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([]);
    expect(await h.balance(GOLD)).toBe(20);
    expect(await reversals().get('shopify', GOLD, extraId)).toMatchObject({
      outcome: 'insufficient_points',
      pointsReversed: 0,
      shortfall: 50,
    });
  });

  it('finishes a reversal whose run died between its call and its record, without a second reversal', async () => {
    const { extraId } = await doubledCredit();
    await expect(audit({ crashAt: 'reversal:granted' })).rejects.toThrow(SimulatedCrash);
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-50]);
    // While the dead run's lease holds, nobody touches the reversal: still drift, nothing sent.
    const grants = await h.calls(GRANT);
    const during = await audit();
    expect(during).toMatchObject({ duplicates: 1, reversed: 0 });
    expect(during.findings[0]!.detail).toContain('is being reversed by another run');
    expect(await h.calls(GRANT)).toBe(grants);
    h.expireLeases();
    const after = await audit();
    expect(after).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.calls(GRANT)).toBe(grants);
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-50]);
    expect(await reversals().get('shopify', GOLD, extraId)).toMatchObject({ state: 'done', pointsReversed: 50, reconciled: true });
    expect(await audit()).toMatchObject({ findings: [], duplicates: 0, reversed: 0 });
  });

  it('leaves a reversal whose answer was lost in doubt, and the next run finds it landed instead of sending it again', async () => {
    const { extraId } = await doubledCredit();
    const grant = { method: 'POST', path: '^/api/ext/users/[^/]+/points$' };
    await h.emulator.addFault({ ...grant, fault: 'late_commit', answer: 'reset', commit_after_ms: 1000, times: 1 });
    const first = await audit();
    expect(first).toMatchObject({ duplicates: 1, reversed: 0 });
    expect(first.findings[0]!.detail).toContain('its reversal may still land');
    await expect.poll(() => h.entries(GOLD, reversalMarker('shopify', extraId)), { timeout: 10_000 }).toEqual([-50]);
    const grants = await h.calls(GRANT);
    expect(await audit()).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.calls(GRANT)).toBe(grants);
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-50]);
  });

  it('sends a reversal in doubt again only after the in-doubt horizon, when the history still shows nothing', async () => {
    const { extraId } = await doubledCredit();
    const page = { status: 502, body: '<html>Bad Gateway</html>', headers: { 'content-type': 'text/html' } };
    await h.emulator.addFault({ method: 'POST', path: '^/api/ext/users/[^/]+/points$', fault: 'status', ...page, times: 1 });
    expect(await audit()).toMatchObject({ duplicates: 1, reversed: 0 });
    const grants = await h.calls(GRANT);
    expect(await audit()).toMatchObject({ duplicates: 1, reversed: 0 });
    expect(await h.calls(GRANT)).toBe(grants);
    h.passHorizon();
    expect(await audit()).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.entries(GOLD, reversalMarker('shopify', extraId))).toEqual([-50]);
  });

  it('reverses a credit that the service applied after the in-doubt horizon, once the late commit lands', async () => {
    const p = purchase();
    const marker = purchaseMarker('shopify', p.orderId);
    // The first calculation is answered with a 500 page at once and applied 1.5 s later: beyond the horizon.
    await h.emulator.addFault({
      method: 'POST',
      path: '^/api/ext/users/[^/]+/points/calculation$',
      fault: 'late_commit',
      answer: 'status',
      status: 500,
      body: '<html>Internal Server Error</html>',
      headers: { 'content-type': 'text/html' },
      commit_after_ms: 1500,
      times: 1,
    });
    const processor = h.processor();
    expect((await processor.process(p)).action).toBe('retry');
    h.passHorizon();
    expect((await processor.process(p)).kind).toBe('credited');
    await expect.poll(() => h.entries(GOLD, marker), { timeout: 10_000 }).toEqual([50, 50]);
    // The harness's ledger is the processing tests' shared table: audit it for this test's order only.
    const reversal = reversalDepsOf({
      client: h.dynamo.documentClient,
      tableName: h.dynamo.tableName,
      clock: h.clock,
      openapi: h.api,
      processing: t.settings(),
    });
    const records = await scanLedger(h.dynamo.documentClient, h.dynamo.tableName);
    const mine = { orders: records.orders.filter((o) => o.orderId === p.orderId), refunds: [] };
    const result = await auditLedger(mine, { ledger: h.ledger, openapi: h.api, reversal });
    expect(result).toMatchObject({ duplicates: 1, reversed: 1 });
    expect(await h.balance(GOLD)).toBe(50);
  });
});
