import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculatePoints } from '../../../../stand-ins/openapi/points.js';

describe('calculatePoints', () => {
  it('equals floor(amount x rate) computed on the decimal rate as written', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 4 }),
        (amount, k, d) => {
          const rate = k / 10 ** d;
          const exact = (BigInt(amount) * BigInt(k)) / 10n ** BigInt(d);
          expect(calculatePoints(amount, rate)).toBe(Number(exact));
        },
      ),
    );
  });

  it('rounds 0.29 x 100 to 29, where binary floating point gives 28.999...', () => {
    expect(0.29 * 100).toBeLessThan(29);
    expect(calculatePoints(100, 0.29)).toBe(29);
  });
});
