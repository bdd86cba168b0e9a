import { describe, expect, it } from 'vitest';
import type { PurchaseEvent } from '../../../../../shared/events/index.js';
import { resolveTransaction, SmaregiTransaction } from '../../../../../shared/sources/smaregi/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { smaregiFixture } from '../../../../../kit/smaregi.js';

const settings = SmaregiSettings.parse({ contractId: 'demo-contract' });
const thin = smaregiThinEvent('25', 'smaregi', settings, Date.parse('2026-11-27T01:00:00Z'), 'created');
const state = { ...settings, rule: settings.amount.rule } as const;
const tx = (changes: Record<string, unknown> = {}) =>
  SmaregiTransaction.parse({ ...smaregiFixture<Record<string, unknown>>('transaction-sale-tax-included.json'), ...changes });
const resolve = (t: SmaregiTransaction) => resolveTransaction(thin, state, t, { chain: { sale: undefined, supplements: [] } }).events;

describe('what a Smaregi transaction state resolves to', () => {
  it('dates the sale at the till’s time (terminalTranDateTime), not when the server received it', () => {
    const [sale] = resolve(tx({ terminalTranDateTime: '2026-11-20T18:30:00+09:00', transactionDateTime: '2026-11-27T09:00:00+09:00' }));
    expect(sale?.occurredAt).toBe('2026-11-20T18:30:00+09:00');
  });

  it('reads a till time without an offset (the older API’s form) as Tokyo time', () => {
    const [sale] = resolve(tx({ terminalTranDateTime: '2018-09-02 13:34:32' }));
    expect(sale?.occurredAt).toBe('2018-09-02T13:34:32+09:00');
  });

  it('takes a disposeServerTransactionHeadId of "0" as no link: a plain return is recorded unlinked, not refunded on sale "0"', () => {
    const [refund] = resolve(tx({ returnSales: '1', disposeServerTransactionHeadId: '0' }));
    expect(refund?.type === 'refund' ? [refund.orderId, refund.unlinked] : refund).toEqual(['unlinked', true]);
  });

  it('keeps a sale without a member open to the edit that attaches one, and a voided one not', () => {
    const open = resolve(tx({ customerId: null }))[0] as PurchaseEvent;
    const voided = resolve(tx({ customerId: null, cancelDivision: '1' }))[0] as PurchaseEvent;
    expect([open.customerMatchWindowSeconds, voided.customerMatchWindowSeconds]).toEqual([31 * 86_400, undefined]);
  });

  it('lets a setting add a division that earns, and still records every other one as not a sale', () => {
    const withTickets = { ...state, earningDivisions: ['1', '9'] };
    const earn = (division: string) =>
      (
        resolveTransaction(thin, withTickets, tx({ transactionHeadDivision: division }), { chain: { sale: undefined, supplements: [] } })
          .events[0] as PurchaseEvent
      ).notEarning;
    expect(['1', '9', '2', '11'].map(earn)).toEqual([undefined, undefined, 'not_a_sale', 'not_a_sale']);
  });

  it('sends a lowering edit’s refund again while its debit is in doubt, and not once it is booked', () => {
    const lowered = tx({ customerCode: 'C-0001', subtotal: '5500', total: '5500', taxInclude: '500' });
    Object.assign(lowered.details?.[0] ?? {}, { unitDiscountedSum: '5500', taxIncludeProportional: '500' });
    const sale = (booked: string[]) => ({
      orderId: '25',
      state: 'done' as const,
      outcome: 'credited',
      eligibleExact: '10000',
      refundIds: ['adj-5000'],
      booked,
    });
    const refunds = (booked: string[]) =>
      resolveTransaction(thin, state, lowered, { chain: { sale: sale(booked), supplements: [] } })
        .events.filter((e) => e.type === 'refund')
        .map((e) => (e.type === 'refund' ? `${e.refundId} ${e.refundExact}` : ''));
    expect([refunds([]), refunds(['adj-5000'])]).toEqual([['adj-5000 5000'], []]);
  });
});
