import { describe, expect, it } from 'vitest';
import type { PointsEvent } from '../../../../../shared/events/index.js';
import { createMemberMemo } from '../../../../../shared/points/index.js';
import {
  countingShortfalls,
  type OrderFacts,
  resolveTransaction,
  type SpendStep,
  SmaregiTransaction,
} from '../../../../../shared/sources/smaregi/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { smaregiFixture } from '../../../../../kit/smaregi.js';

/** What a transaction's state resolves to for the points spent at the till (spend.ts), from what the ledger holds. */
const settings = SmaregiSettings.parse({ contractId: 'demo-contract', tillPoints: 'membership' });
const thin = smaregiThinEvent('25', 'smaregi', settings, Date.parse('2026-11-27T01:00:00Z'), 'created');
const state = { ...settings, rule: settings.amount.rule } as const;
const tx = (changes: Record<string, unknown> = {}) =>
  SmaregiTransaction.parse({
    ...smaregiFixture<Record<string, unknown>>('transaction-sale-tax-included.json'),
    customer: { customerId: '1', customerCode: 'C-0001' },
    spendPoint: '300',
    ...changes,
  });
const order = (orderId: string, facts: Partial<OrderFacts> = {}): OrderFacts => ({
  orderId,
  state: 'done',
  outcome: 'debited',
  eligibleExact: '300',
  externalId: 'C-0001',
  refundIds: [],
  booked: [],
  points: -300,
  ...facts,
});
const spends = (t: SmaregiTransaction, steps: SpendStep[], s = state) =>
  resolveTransaction(thin, s, t, { chain: { sale: undefined, supplements: [] }, spends: steps })
    .events.filter((e): e is Extract<PointsEvent, { type: 'purchase' }> => e.type === 'purchase' && e.fixedPoints !== undefined)
    .map((e) => [e.orderId, e.fixedPoints, e.customer?.externalId]);

describe('points spent at a Smaregi till (tillPoints membership)', () => {
  it('deducts the points a member spent as an order of its own, after the sale’s purchase', () => {
    const events = resolveTransaction(thin, state, tx(), { chain: { sale: undefined, supplements: [] }, spends: [] }).events;
    expect(events.map((e) => [e.orderId, e.type === 'purchase' ? e.fixedPoints : undefined])).toEqual([
      ['25', undefined],
      ['25/spend-1', -300],
    ]);
  });

  it('deducts nothing under tillPoints ignore, and nothing for a sale without a member', () => {
    const ignore = { ...state, tillPoints: 'ignore' as const };
    expect([spends(tx(), [], ignore), spends(tx({ customerId: null, customerCode: null }), [])]).toEqual([[], []]);
  });

  it('moves the spend with the member: the first member’s points given back, then deducted from the new one', () => {
    const moved = tx({ customerId: '2', customer: { customerId: '2', customerCode: 'C-0002' } });
    const given = spends(moved, [{ spend: order('25/spend-1'), back: undefined }]);
    const next = spends(moved, [{ spend: order('25/spend-1'), back: order('25/spend-1/back', { outcome: 'credited', points: 300 }) }]);
    expect([given, next]).toEqual([[['25/spend-1/back', 300, 'C-0001']], [['25/spend-2', -300, 'C-0002']]]);
  });

  it('runs an unfinished deduction again on what it was claimed for, whatever the state says now', () => {
    const steps = [{ spend: order('25/spend-1', { state: 'pending', outcome: undefined, points: undefined }), back: undefined }];
    expect(spends(tx({ spendPoint: '100' }), steps)).toEqual([['25/spend-1', -300, 'C-0001']]);
  });

  it('does not try again a deduction that took nothing (parked) while the state spends the same', () => {
    const parked = order('25/spend-1', { outcome: 'insufficient_points', points: 0 });
    expect([
      spends(tx(), [{ spend: parked, back: undefined }]),
      spends(tx({ cancelDivision: '1' }), [{ spend: parked, back: undefined }]),
    ]).toEqual([[], []]);
  });

  it('gives the points back to the member they came from when staff take the member off the sale', () => {
    const detached = tx({ customerId: null, customer: null, customerCode: null });
    expect(spends(detached, [{ spend: order('25/spend-1'), back: undefined }])).toEqual([['25/spend-1/back', 300, 'C-0001']]);
  });

  it('gives back only what a clamped deduction took', () => {
    const clamped = order('25/spend-1', { outcome: 'insufficient_points', points: -120 });
    expect(spends(tx({ cancelDivision: '1' }), [{ spend: clamped, back: undefined }])).toEqual([['25/spend-1/back', 120, 'C-0001']]);
  });
});

describe('TillSpendShortfalls', () => {
  const outcomes = {
    short: {
      kind: 'insufficient_points',
      action: 'ack',
      policy: 'clamp',
      customerId: 'm',
      points: 100,
      target: 300,
      shortfall: 200,
      reconciled: false,
    },
    done: { kind: 'debited', action: 'ack', customerId: 'm', points: 300, target: 300, reconciled: false },
  } as const;
  const counted = async (orderId: string, outcome: keyof typeof outcomes) => {
    const names: string[] = [];
    const run = countingShortfalls(
      {
        purchase: async () => outcomes[outcome],
        refund: async () => outcomes[outcome],
        earns: async () => outcomes[outcome],
        members: createMemberMemo(),
      },
      { addMetric: (name) => names.push(name) },
    );
    await run.purchase({ orderId } as never);
    return names;
  };

  it('counts a till spend recorded insufficient_points once, and nothing for a spend done in full or another order cut short', async () => {
    expect([await counted('25/spend-1', 'short'), await counted('25/spend-1', 'done'), await counted('25', 'short')]).toEqual([
      ['TillSpendShortfalls'],
      [],
      [],
    ]);
  });
});
