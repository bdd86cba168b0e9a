import { describe, expect, it } from 'vitest';
import { purchaseMarker, refundMarker } from '../../../../shared/points/index.js';
import type { PurchaseEvent } from '../../../../shared/events/index.js';
import type { CheckpointStep } from '../../../../shared/points/index.js';
import { createOpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { CALCULATION, CLIENT_ID, GRANT, purchase, refund, useHarness } from './harness.js';

/**
 * The harsher world of issue 50, each hazard through the real emulator's `late_commit` fault (the request
 * is applied after its answer, in real time) and dynalite. These tests run with a 120-s horizon, longer
 * than the harness's 60-s lease: the horizon, not the lease, is what keeps a late request from doubling.
 */
const h = useHarness();
const settings = { inDoubtSeconds: 120 };
const HORIZON_MS = 120_000;

const CALCULATION_PATH = '^/api/ext/users/[^/]+/points/calculation$';
const GRANT_PATH = '^/api/ext/users/[^/]+/points$';
const marker = (e: PurchaseEvent) => purchaseMarker(e.source, e.orderId);

/** Waits (real time, bounded: the commits come 3 s after their request, a busy machine may be slow) until the late request has landed in the member's history. */
async function landed(memberId: string, m: string): Promise<void> {
  await expect.poll(() => h.entries(memberId, m), { timeout: 15_000, interval: 100 }).toHaveLength(1);
}

describe('late commits at the credit', () => {
  it('a reset whose request lands later is not sent again: the retry waits for the horizon and finds it', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: 3000 });
    const event = purchase();
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown', action: 'retry' });
    // Pressed again at once (before the request has landed): nothing is sent.
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown' });
    await landed('member-gold', marker(event));
    h.clock.advance(HORIZON_MS + 1);
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'credited', reconciled: true, points: 50 });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('an HTML 500 from a gateway whose backend carries on is in doubt like a timeout, never credited twice', async () => {
    await h.emulator.addFault({
      method: 'POST',
      path: CALCULATION_PATH,
      fault: 'late_commit',
      answer: 'status',
      status: 500,
      body: '<html><body>Internal Server Error</body></html>',
      headers: { 'content-type': 'text/html' },
      commit_after_ms: 3000,
    });
    const event = purchase();
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown' });
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown' });
    await landed('member-gold', marker(event));
    h.clock.advance(HORIZON_MS + 1);
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'credited', reconciled: true });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('a commit later than the lease: the taker of the expired lease does not credit again before the horizon', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'late_commit', answer: 'hold', commit_after_ms: 3000 });
    const event = purchase();
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'timeout' });
    h.expireLeases();
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown' });
    expect(await h.calls(CALCULATION)).toBe(1);
    await landed('member-gold', marker(event));
    h.clock.advance(HORIZON_MS);
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'credited', reconciled: true });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('a request that never lands is sent again once the horizon has passed and a complete search found nothing', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'status', status: 502, body: 'bad gateway', times: 1 });
    const event = purchase();
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown', until: h.clock() + HORIZON_MS });
    h.clock.advance(HORIZON_MS + 1);
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'credited', reconciled: false });
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(2);
  });
});

describe('late commits at a refund', () => {
  it("a reset debit that lands later holds the order's other refunds until the horizon, then each debits once", async () => {
    const p = purchase({ eligibleAmount: 999 });
    await h.processor({ settings }).process(p);
    await h.emulator.addFault({ method: 'POST', path: GRANT_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: 3000 });
    const r1 = refund(p, 'r1', 500);
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'outcome_unknown' });
    const r2 = refund(p, 'r2', 499);
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'outcome_unknown' });
    await landed('member-gold', refundMarker(p.source, p.orderId, 'r1'));
    h.clock.advance(HORIZON_MS + 1);
    expect(await h.processor({ settings }).process(r2)).toMatchObject({ kind: 'debited', points: 25 });
    expect(await h.processor({ settings }).process(r1)).toMatchObject({ kind: 'debited', points: 24, reconciled: true });
    expect(await h.entries('member-gold', refundMarker(p.source, p.orderId, 'r1'))).toEqual([-24]);
    expect(await h.balance('member-gold')).toBe(0);
    expect(await h.calls(GRANT)).toBe(2);
  });
});

describe('a history behind the service', () => {
  it("a refund whose order's credit the lagging history does not show yet waits for it, and debits from the exact credit", async () => {
    const p = purchase({ eligibleAmount: 999 });
    // Another grant lands between the lookup and the credit: the balance difference (149) is not the credit (49).
    const operatorGrant = async (step: CheckpointStep) => {
      if (step === 'purchase:customer') await h.api.grantPoints('member-gold', { point: 100, remarks: 'operator' });
    };
    expect(await h.processor({ settings, checkpoint: operatorGrant }).process(p)).toMatchObject({ points: 149, exact: false });
    await h.emulator.patchClient(CLIENT_ID, { history_lag_ms: 3000 });
    const r = refund(p, 'r1', 999);
    expect(await h.processor({ settings }).process(r)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'credit_not_visible' });
    expect(await h.calls(GRANT)).toBe(1); // the operator's only
    await landed('member-gold', marker(p));
    expect(await h.processor({ settings }).process(r)).toMatchObject({ kind: 'debited', points: 49 });
    expect(await h.balance('member-gold')).toBe(100);
  });
});

describe('the member a request in doubt went to', () => {
  it('a re-link between attempts: the history of the member the request went to is searched, and nobody else is credited', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: 3000 });
    const event = purchase();
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'outcome_unknown' });
    expect(await h.ledger.getOrder(event)).toMatchObject({ inDoubtMemberId: 'member-gold' });
    // The shop customer is moved to another member before the retry.
    await h.api.updateMember('member-gold', { external_ids: { shopify: 'cust-gold-old' } });
    await h.api.updateMember('member-regular', { external_ids: { shopify: 'cust-gold' } });
    await landed('member-gold', marker(event));
    h.clock.advance(HORIZON_MS + 1);
    expect(await h.processor({ settings }).process(event)).toMatchObject({ kind: 'credited', customerId: 'member-gold', reconciled: true });
    expect(await h.entries('member-regular', marker(event))).toEqual([]);
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });
});

describe('the member a request in doubt went to, gone', () => {
  it('a member who withdraws while a credit to them is in doubt: the order ends (the customer awaits a link), never retried for good', async () => {
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: 300 });
    const event = purchase();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'outcome_unknown' });
    await landed('member-gold', marker(event));
    await h.api.resign('member-gold');
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'customer_not_found', action: 'ack' });
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'done', outcome: 'customer_not_found' });
    expect(await h.calls(CALCULATION)).toBe(2); // the one in doubt; the second refused (member_not_found): nothing ran
  });

  it("a member who withdraws while a refund's debit to them is in doubt: the refund ends customer_withdrawn, never retried for good", async () => {
    const p = purchase();
    expect(await h.processor().process(p)).toMatchObject({ kind: 'credited' });
    await h.emulator.addFault({ method: 'POST', path: GRANT_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: 300 });
    const r = refund(p, 'r1', 500);
    expect(await h.processor().process(r)).toMatchObject({ kind: 'outcome_unknown' });
    await landed('member-gold', refundMarker('shopify', p.orderId, 'r1'));
    await h.api.resign('member-gold');
    h.passHorizon();
    expect(await h.processor().process(r)).toMatchObject({ kind: 'customer_withdrawn', action: 'ack', customerId: 'member-gold' });
  });
});

describe("the member a dead worker's request went to", () => {
  it("a worker killed after its credit, then a re-link before the retry: the first member's history is searched, nobody else is credited", async () => {
    const event = purchase();
    await h.crashAt('purchase:granted', event);
    expect(await h.ledger.getOrder(event)).toMatchObject({ foundMember: { id: 'member-gold' } });
    await h.api.updateMember('member-gold', { external_ids: { shopify: 'cust-gold-old' } });
    await h.api.updateMember('member-regular', { external_ids: { shopify: 'cust-gold' } });
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', customerId: 'member-gold', reconciled: true });
    expect(await h.entries('member-regular', marker(event))).toEqual([]);
    expect(await h.entries('member-gold', marker(event))).toEqual([50]);
  });

  it('a worker killed before its credit, then a re-link: its retry sends the credit once, to the member its claim named', async () => {
    const event = purchase();
    await h.crashAt('purchase:customer', event);
    await h.api.updateMember('member-gold', { external_ids: { shopify: 'cust-gold-old' } });
    await h.api.updateMember('member-regular', { external_ids: { shopify: 'cust-gold' } });
    h.passHorizon();
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited', customerId: 'member-gold' });
    expect(await h.entries('member-regular', marker(event))).toEqual([]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });
});

describe('a search is complete or in doubt', () => {
  it('a credit pushed past the first page by newer entries is found after a crash, however few pages the audit reads', async () => {
    const event = purchase();
    await h.crashAt('purchase:granted', event);
    // 1000 newer entries push the credit onto the second page (1000 entries a page).
    // Through a client of its own with the default timeouts: the harness's are short (for the delay fault).
    const filler = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: h.emulator.url, clientId: CLIENT_ID, clientSecret: 'test-secret' }),
    });
    try {
      for (let i = 0; i < 10; i++) {
        await Promise.all(Array.from({ length: 100 }, () => filler.grantPoints('member-gold', { point: 1, remarks: 'visit' })));
      }
    } finally {
      await filler.close();
    }
    h.clock.advance(HORIZON_MS + 60_000);
    expect(await h.processor({ settings: { ...settings, historyPages: 1 } }).process(event)).toMatchObject({
      kind: 'credited',
      reconciled: true,
    });
    expect(await h.calls(CALCULATION)).toBe(1);
  });
});
