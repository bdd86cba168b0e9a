import { describe, expect, it } from 'vitest';
import { redemptionValue } from '../../../../shared/redemption/index.js';

describe('a redemption value', () => {
  it('is points times the value per point in whole yen', () => {
    expect(redemptionValue(300, '1', 'JPY')).toBe('300');
  });

  it('multiplies a decimal value per point exactly, with no float error', () => {
    // 0.1 × 3 as floats is 0.30000000000000004.
    expect(redemptionValue(3, '0.1', 'USD')).toBe('0.30');
  });

  it('rounds down once, at the last step, to what the currency holds', () => {
    expect(redemptionValue(101, '0.5', 'JPY')).toBe('50');
    expect(redemptionValue(101, '0.015', 'USD')).toBe('1.51');
  });
});
