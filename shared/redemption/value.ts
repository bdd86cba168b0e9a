import { currencyDigits, formatMinorUnits, parseDecimal, toUnits } from '../money/index.js';

/**
 * A redemption's amount: points × the value of one point, exact (BigInt), rounded once at the last step
 * down to what the currency can hold (JPY: whole yen), so a code is never worth more than its points.
 */
export function redemptionValue(points: number, valuePerPoint: string, currency: string): string {
  const per = parseDecimal(valuePerPoint);
  if (per === undefined || per.units <= 0n) throw new Error('valuePerPoint is not a positive decimal');
  const exact = { units: per.units * BigInt(points), scale: per.scale };
  return formatMinorUnits(toUnits(exact, currency, 'minor'), currencyDigits(currency));
}
