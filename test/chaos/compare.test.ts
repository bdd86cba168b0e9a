import { describe, expect, it } from 'vitest';
import { compareWithModel, type ObservedCustomer } from '../../chaos/compare.js';
import { applyRedemptions, buildModel } from '../../chaos/model.js';
import type { Scenario } from '../../chaos/scenario.js';

const ORDER = '512345678901234567';
const REFUND = '312345678901234567';

const scenario: Scenario = {
  seed: 0,
  customers: [{ index: 0, loginId: 'a', rank: 'gold', shopifyId: '7000000000000000001', posCard: 'PC-1', registered: true }],
  events: [
    { kind: 'purchase', key: 'p', source: 'shopify', orderId: ORDER, customer: 0, amount: 1000, test: false },
    {
      kind: 'refund',
      key: 'r',
      source: 'shopify',
      orderId: ORDER,
      refundId: REFUND,
      customer: 0,
      amount: 500,
      cancel: false,
      orphan: false,
    },
  ],
  deliveries: [],
  counts: { purchases: 1, refunds: 1, cancellations: 0, orphanRefunds: 0, duplicates: 0, concurrentDuplicates: 0, reordered: 0 },
};
const model = buildModel(scenario);

const credit = (id: string) => ({ id, point: 50, title: 'Purchase', remarks: `lp1:shopify:order:${ORDER}` });
const debit = (id: string) => ({ id, point: -25, title: 'Refund', remarks: `lp1:shopify:refund:${ORDER}:${REFUND}` });

function observe(history: ObservedCustomer['history'], balance: number): ObservedCustomer[] {
  return [{ index: 0, balance, history }];
}

describe('the comparison with the model', () => {
  it('finds nothing wrong when every point is where the model says', () => {
    const result = compareWithModel(model, observe([debit('2'), credit('1')], 25));
    expect(result.mismatches).toEqual([]);
    expect(result.observed).toEqual({ credited: 50, debited: 25, entries: 2, doubled: 0, reversed: 0 });
  });

  it('compares after the final audit: a doubled credit and its reversal cancel out', () => {
    const reversal = { id: '4', point: -50, title: 'Reversal', remarks: 'lp1:shopify:reversal:2' };
    const result = compareWithModel(model, observe([reversal, debit('3'), credit('2'), credit('1')], 25));
    expect(result.mismatches).toEqual([]);
    expect(result.observed).toEqual({ credited: 50, debited: 25, entries: 2, doubled: 1, reversed: 1 });
  });

  it('fails a doubled debit the audit left unreversed', () => {
    const result = compareWithModel(model, observe([debit('3'), debit('2'), credit('1')], 0));
    expect(result.mismatches.map((m) => m.what)).toContain('debits [-25, -25] total 50, expected total 25');
    expect(result.observed.doubled).toBe(1);
    expect(result.observed.reversed).toBe(0);
  });

  it("counts the audit's settlement of a clamp a double caused as the order's debit, beside the clamped one", () => {
    // The refund clamped to 15 of its 25 (another order's double held the rest); the audit took the 10 later.
    const clamped = { ...debit('3'), point: -15 };
    const settled = { id: '5', point: -10, title: 'Settled', remarks: `lp1:shopify:reversal:shortfall%3A${ORDER}%3A${REFUND}` };
    const result = compareWithModel(model, observe([settled, clamped, credit('1')], 25));
    expect(result.mismatches).toEqual([]);
    expect(result.observed).toMatchObject({ debited: 25, doubled: 0, reversed: 0 });
  });

  it('fails a reversal of an entry that was not doubled', () => {
    const reversal = { id: '4', point: 25, title: 'Reversal', remarks: 'lp1:shopify:reversal:3' };
    const result = compareWithModel(model, observe([reversal, debit('3'), credit('1')], 50));
    expect(result.mismatches.map((m) => m.what)).toContain('reversal 4 (25) of entry 3, which was not doubled');
  });

  it('reports a doubled credit', () => {
    const result = compareWithModel(model, observe([debit('3'), credit('2'), credit('1')], 75));
    expect(result.mismatches.map((m) => m.what)).toEqual(['balance 75, expected 25', 'credits [50, 50], expected [50]']);
  });

  it('reports a lost debit', () => {
    const result = compareWithModel(model, observe([credit('1')], 50));
    expect(result.mismatches.map((m) => m.what)).toContain('debits [] total 0, expected total 25');
  });

  it('reports a history entry that belongs to no order', () => {
    const result = compareWithModel(model, observe([debit('3'), credit('1'), { id: '9', point: 10, title: 'x', remarks: null }], 35));
    expect(result.mismatches.map((m) => m.what)).toContain('history entry 9 (10) belongs to no order');
  });

  it('reports a customer that was not read back', () => {
    expect(compareWithModel(model, []).mismatches.map((m) => m.what)).toEqual(['customer was not read back']);
  });

  it('leaves a redemption and its give-back to the redemption check, and wants a held code off the balance', () => {
    const redeemed = buildModel(scenario);
    applyRedemptions(redeemed, new Map([[0, 20]]));
    const deduction = (id: string, request: string) => ({
      id,
      point: -10,
      title: null,
      remarks: `lp1:shopify:redeem:7000000000000000001:${request}`,
    });
    const back = { id: '6', point: 10, title: null, remarks: 'lp1:shopify:redeem-return:7000000000000000001:req-returned' };
    const history = [
      debit('2'),
      credit('1'),
      deduction('3', 'req-held-1'),
      deduction('4', 'req-held-2'),
      deduction('5', 'req-returned'),
      back,
    ];
    expect(compareWithModel(redeemed, observe(history, 5)).mismatches).toEqual([]);
    expect(compareWithModel(redeemed, observe(history, 25)).mismatches.map((m) => m.what)).toEqual(['balance 25, expected 5']);
  });

  it('checks a till spend and its give-back on their own, not as the sale credit and a debit', () => {
    const spend = (id: string, point: number, back: boolean) => ({
      id,
      point,
      title: null,
      remarks: `lp1:smaregi:order:${ORDER}%2Fspend-1${back ? '%2Fback' : ''}`,
    });
    const given = [debit('2'), credit('1'), spend('3', -1, false), spend('4', 1, true)];
    expect(compareWithModel(model, observe(given, 25)).mismatches).toEqual([]);
    const twice = [debit('2'), credit('1'), spend('3', -1, false), spend('4', -1, false), spend('5', 1, true)];
    expect(compareWithModel(model, observe(twice, 24)).mismatches.map((m) => m.what)).toEqual([
      'balance 24, expected 25',
      `till ${ORDER} spend-1: deductions [-1, -1], given back [1], expected one of each netting 0 (or none)`,
    ]);
    const notBack = [debit('2'), credit('1'), spend('3', -1, false)];
    expect(compareWithModel(model, observe(notBack, 24)).mismatches).toHaveLength(2);
  });

  describe('an order shipped in parts (provisional.ts, partial fulfilments)', () => {
    const share = (id: string, point: number, back: boolean) => ({
      id,
      point,
      title: null,
      remarks: back ? `lp1:shopify:refund:${ORDER}%2Fship-400:superseded` : `lp1:shopify:order:${ORDER}%2Fship-400`,
    });

    it('checks a share credited and taken back on its own, not as the order’s credit and a refund’s debit', () => {
      const history = [share('4', -20, true), debit('3'), credit('2'), share('1', 20, false)];
      expect(compareWithModel(model, observe(history, 25)).mismatches).toEqual([]);
    });

    it('fails a share left credited beside the whole order’s credit', () => {
      const history = [debit('3'), credit('2'), share('1', 20, false)];
      expect(compareWithModel(model, observe(history, 45)).mismatches.map((m) => m.what)).toEqual([
        'balance 45, expected 25',
        `share ${ORDER} ship-400: credits [20], taken back [], expected one of each netting 0 (or none)`,
      ]);
    });

    it('fails a share taken back twice', () => {
      const history = [share('5', -20, true), share('4', -20, true), debit('3'), credit('2'), share('1', 20, false)];
      expect(compareWithModel(model, observe(history, 5)).mismatches.map((m) => m.what)).toContain(
        `share ${ORDER} ship-400: credits [20], taken back [-20, -20], expected one of each netting 0 (or none)`,
      );
    });
  });

  describe('an order earning at fulfilment (provisional.ts)', () => {
    const refundedInFull = (source: 'shopify' | 'shopify-later'): Scenario => ({
      ...scenario,
      events: [
        { kind: 'purchase', key: 'p', source, orderId: ORDER, customer: 0, amount: 1000, test: false },
        { kind: 'refund', key: 'r', source, orderId: ORDER, refundId: 'cancel', customer: 0, amount: 1000, cancel: true, orphan: false },
      ],
    });

    it('refunded in full before its moment, it has no entries at all, and that is right', () => {
      expect(compareWithModel(buildModel(refundedInFull('shopify-later')), observe([], 0)).mismatches).toEqual([]);
    });

    it('refunded in full after its moment, its credit and the debit of all of it are right too', () => {
      const back = { id: '2', point: -50, title: 'Refund', remarks: `lp1:shopify-later:refund:${ORDER}:cancel` };
      const earned = { ...credit('1'), remarks: `lp1:shopify-later:order:${ORDER}` };
      expect(compareWithModel(buildModel(refundedInFull('shopify-later')), observe([back, earned], 0)).mismatches).toEqual([]);
    });

    it('an order earning at payment with no entries is still a credit missing', () => {
      expect(compareWithModel(buildModel(refundedInFull('shopify')), observe([], 0)).mismatches.map((m) => m.what)).toContain(
        'credits [], expected [50]',
      );
    });
  });
});
