import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDecimals,
  currencyDigits,
  type Decimal,
  formatMinorUnits,
  parseDecimal,
  sumDecimals,
  toUnits,
} from '../../../../shared/money/money.js';

const dec = (s: string): Decimal => {
  const d = parseDecimal(s);
  if (!d) throw new Error(`not a decimal: ${s}`);
  return d;
};

// Currencies with 0, 2 and 3 minor digits.
const currency = fc.constantFrom('JPY', 'USD', 'EUR', 'KWD');
const minorUnits = fc.bigInt({ min: 0n, max: 10n ** 15n });

describe('parseDecimal', () => {
  it('reads plain decimal strings exactly', () => {
    expect(dec('358.20')).toEqual({ units: 35820n, scale: 2 });
    expect(dec('3000')).toEqual({ units: 3000n, scale: 0 });
    expect(dec('-10.00')).toEqual({ units: -1000n, scale: 2 });
  });

  it('refuses exponents, spaces, signs other than minus and empty text', () => {
    for (const bad of ['1e3', ' 1.00', '+1', '', '1.', '.5', '1,00', 'NaN', '0x10']) expect(parseDecimal(bad)).toBeUndefined();
  });
});

describe('toUnits', () => {
  it('rounds down to whole major units by the major_floor rule', () => {
    expect(toUnits(dec('358.99'), 'USD', 'major_floor')).toBe(358n);
    expect(toUnits(dec('91.60'), 'EUR', 'major_floor')).toBe(91n);
  });

  it('gives minor units by the minor rule, with the currency own number of digits', () => {
    expect(toUnits(dec('358.20'), 'USD', 'minor')).toBe(35820n);
    expect(toUnits(dec('3000'), 'JPY', 'minor')).toBe(3000n);
    expect(toUnits(dec('1.250'), 'KWD', 'minor')).toBe(1250n);
    expect(toUnits(dec('12.5'), 'USD', 'minor')).toBe(1250n);
  });

  it('is not fooled by values a float would round (0.1 + 0.2, 1.005)', () => {
    expect(toUnits(addDecimals(dec('0.1'), dec('0.2')), 'USD', 'minor')).toBe(30n);
    expect(toUnits(dec('1.005'), 'USD', 'minor')).toBe(100n);
    expect(toUnits(dec('999999999.99'), 'USD', 'minor')).toBe(99999999999n);
  });

  it('knows zero-, two- and three-digit currencies', () => {
    expect([currencyDigits('JPY'), currencyDigits('usd'), currencyDigits('KWD'), currencyDigits('ZZZ')]).toEqual([0, 2, 3, 2]);
  });
});

describe('money conversion properties', () => {
  it('never loses or invents a unit: minor units written as a decimal convert back to the same count', () => {
    fc.assert(
      fc.property(minorUnits, currency, (n, cur) => {
        const text = formatMinorUnits(n, currencyDigits(cur));
        expect(toUnits(dec(text), cur, 'minor')).toBe(n);
      }),
    );
  });

  it('trailing zeros never change the amount', () => {
    fc.assert(
      fc.property(minorUnits, currency, fc.integer({ min: 1, max: 6 }), (n, cur, zeros) => {
        const digits = currencyDigits(cur);
        const text = formatMinorUnits(n, digits);
        const padded = digits === 0 ? `${text}.${'0'.repeat(zeros)}` : `${text}${'0'.repeat(zeros)}`;
        expect(toUnits(dec(padded), cur, 'minor')).toBe(n);
        expect(toUnits(dec(padded), cur, 'major_floor')).toBe(toUnits(dec(text), cur, 'major_floor'));
      }),
    );
  });

  it('the sum of amounts converts to the sum of their units (nothing gained or lost in adding)', () => {
    fc.assert(
      fc.property(fc.array(minorUnits, { maxLength: 20 }), currency, (parts, cur) => {
        const digits = currencyDigits(cur);
        const total = sumDecimals(parts.map((p) => dec(formatMinorUnits(p, digits))));
        expect(toUnits(total, cur, 'minor')).toBe(parts.reduce((a, b) => a + b, 0n));
      }),
    );
  });

  it('major_floor is the largest whole major unit not above the amount', () => {
    fc.assert(
      fc.property(minorUnits, currency, (n, cur) => {
        const scale = 10n ** BigInt(currencyDigits(cur));
        const major = toUnits(dec(formatMinorUnits(n, currencyDigits(cur))), cur, 'major_floor');
        expect(major * scale <= n && n < (major + 1n) * scale).toBe(true);
      }),
    );
  });
});
