import { parseDecimal } from '../money/index.js';
import { ReportRequestError } from './errors.js';

/**
 * Points in yen at the value of one point (a decimal such as "1" or "0.5": the stage's redemption
 * setting), exact in BigInt; only the final figure is rounded, to the nearest yen with halves away from
 * zero (四捨五入: -1.5 -> -2, 2.5 -> 3).
 */
export function pointsInYen(points: number, valuePerPoint: string): string {
  const per = parseDecimal(valuePerPoint);
  if (per === undefined || per.units <= 0n) {
    throw new ReportRequestError(
      'invalid_value_per_point',
      `the value of a point must be a positive decimal, got "${valuePerPoint.slice(0, 40)}"`,
    );
  }
  const exact = BigInt(points) * per.units;
  const unit = 10n ** BigInt(per.scale);
  const magnitude = exact < 0n ? -exact : exact;
  let yen = magnitude / unit;
  if ((magnitude % unit) * 2n >= unit) yen += 1n;
  return String(exact < 0n ? -yen : yen);
}
