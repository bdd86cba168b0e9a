import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../../../../shared/money/index.js';
import { SmaregiTransaction, transactionAmount } from '../../../../../shared/sources/smaregi/index.js';
import { smaregiFixture } from '../../../../../kit/smaregi.js';

const tx = (name: string, changes: Record<string, unknown> = {}) =>
  SmaregiTransaction.parse({ ...smaregiFixture<Record<string, unknown>>(name), ...changes });
const amount = (t: SmaregiTransaction, rule: 'discount' | 'earn' = 'discount') => formatDecimal(transactionAmount(t, rule).amount);

describe('the amount a Smaregi transaction earns on', () => {
  it('is ¥10,000 for ¥11,000 with ¥1,000 tax inside the price', () => {
    expect(amount(tx('transaction-sale-tax-included.json'))).toBe('10000');
  });

  it('is ¥10,000 for ¥10,000 with ¥1,000 tax added, leaving out the pointNotApplicable line', () => {
    expect(amount(tx('transaction-sale-tax-added.json'))).toBe('10000');
  });

  it('takes out the points spent as payment by default, and keeps them when they earn', () => {
    const base = tx('transaction-sale-tax-included.json');
    const line = { ...base.details![0]!, discountPointProportional: '1100', taxIncludeProportional: '900' };
    const paidWithPoints = { ...base, details: [line] };
    expect([amount(paidWithPoints), amount(paidWithPoints, 'earn')]).toEqual(['9000', '10100']);
  });

  it('keeps fractions exact (no rounding before the points call)', () => {
    const base = tx('transaction-sale-tax-included.json');
    const line = { ...base.details![0]!, unitDiscountedSum: '1000.5', taxIncludeProportional: '90.95' };
    expect(amount({ ...base, details: [line] })).toBe('909.55');
  });

  it('measures a return-cancellation record negative', () => {
    expect(amount(tx('transaction-return-cancellation.json'))).toBe('-10000');
  });

  it('falls back to the head without details: subtotal less discounts and the tax inside', () => {
    expect(amount(tx('transaction-sale-tax-included.json', { details: undefined, subtotalDiscountPrice: '1100', taxInclude: '900' }))).toBe(
      '9000',
    );
  });

  it('says whether the earning lines had the tax inside the price', () => {
    expect([
      transactionAmount(tx('transaction-sale-tax-included.json'), 'discount').taxesIncluded,
      transactionAmount(tx('transaction-sale-tax-added.json'), 'discount').taxesIncluded,
    ]).toEqual([true, false]);
  });

  it('takes off a staff discount that unitDiscountedSum does not include yet, earning on what was paid without tax', () => {
    const base = tx('transaction-sale-tax-included.json');
    const line = { ...base.details![0]!, staffDiscountProportional: '1100', taxIncludeProportional: '900' };
    expect(amount({ ...base, total: '9900', taxInclude: '900', details: [line] })).toBe('9000');
  });

  it('does not take a staff discount off twice when unitDiscountedSum is already after it', () => {
    const base = tx('transaction-sale-tax-included.json');
    const line = { ...base.details![0]!, unitDiscountedSum: '9900', staffDiscountProportional: '1100', taxIncludeProportional: '900' };
    expect(amount({ ...base, total: '9900', taxInclude: '900', details: [line] })).toBe('9000');
  });
});
