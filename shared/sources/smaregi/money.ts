// money.ts alone, not ../sources/index.js: the worker loads this module, and the index would bundle every sender's parser.
import { compareDecimals, type Decimal, parseDecimal, subtractDecimals, sumDecimals, ZERO } from '../../money/index.js';
import type { SmaregiDetail, SmaregiTransaction } from './transaction.js';

/**
 * What a Smaregi transaction earns on, exactly (the Japan basis of every source): the amount without
 * consumption tax, after discounts, whether the tax is inside the price (`taxInclude`, taxDivision 0) or
 * added to it (`taxExclude`, taxDivision 1). Line by line when the details are there (they are: the
 * worker asks `with_details=all`), so `pointNotApplicable` lines and lines that are no sale earn nothing:
 *
 *   unitDiscountedSum - discountPriceProportional - discountCouponProportional
 *     [- discountPointProportional] - taxIncludeProportional
 *     [- productBundle/staffDiscount/bargainDiscount/roundingPriceProportional, when not already in]
 *
 * An added tax (`taxExcludeProportional`) is on top of `unitDiscountedSum`, so it is never in. Points
 * spent as payment (`pointDiscount` / `spendPoint`) are a discount by default (`pointsSpent: "discount"`):
 * what was paid with points earns no new points. `"earn"` counts them as money. Signed: a return or a
 * return-cancellation record (negative amounts) measures negative; the caller takes its magnitude.
 */
export type PointsSpentRule = 'discount' | 'earn';

export interface TransactionAmount {
  /** The exact amount (signed, never rounded). */
  amount: Decimal;
  /** Whether an earning line's price had the tax inside (kept with the order as its terms). */
  taxesIncluded: boolean;
}

const dec = (text: string | null | undefined): Decimal => (text ? (parseDecimal(text) ?? ZERO) : ZERO);

function lineAmount(line: SmaregiDetail, pointsSpent: PointsSpentRule, lessOther: boolean): Decimal {
  const off = [line.discountPriceProportional, line.discountCouponProportional, line.taxIncludeProportional];
  if (pointsSpent === 'discount') off.push(line.discountPointProportional);
  const amount = subtractDecimals(dec(line.unitDiscountedSum), sumDecimals(off.map(dec)));
  return lessOther ? subtractDecimals(amount, otherDiscounts(line)) : amount;
}

/** The line's share of the bundle, staff, sale and rounding discounts. */
const otherDiscounts = (line: SmaregiDetail): Decimal =>
  sumDecimals(
    [line.productBundleProportional, line.staffDiscountProportional, line.bargainDiscountProportional, line.roundingPriceProportional].map(
      dec,
    ),
  );

const headField = (tx: SmaregiTransaction, name: string): Decimal => {
  const v = (tx as Record<string, unknown>)[name];
  return typeof v === 'string' ? dec(v) : ZERO;
};

/** What the head says the customer paid for the goods without tax: total less both taxes and any carriage or fee. */
function paidWithoutTax(tx: SmaregiTransaction, pointsSpent: PointsSpentRule): Decimal {
  const off = [tx.taxInclude, tx.taxExclude].map(dec);
  off.push(headField(tx, 'carriage'), headField(tx, 'commission'));
  const paid = subtractDecimals(dec(tx.total), sumDecimals(off));
  return pointsSpent === 'earn' ? sumDecimals([paid, dec(tx.pointDiscount)]) : paid;
}

/**
 * Whether `unitDiscountedSum` is still before the bundle, staff, sale and rounding discounts. Smaregi
 * does not publish it, so the transaction says: when the lines before those discounts come to more
 * than the head says was paid, they are taken off too. Either way the amount is what was paid.
 */
function linesBeforeOtherDiscounts(tx: SmaregiTransaction, lines: SmaregiDetail[], pointsSpent: PointsSpentRule): boolean {
  if (lines.every((l) => otherDiscounts(l).units === 0n)) return false;
  const before = sumDecimals(lines.map((l) => lineAmount(l, pointsSpent, false)));
  return compareDecimals(before, paidWithoutTax(tx, pointsSpent)) > 0;
}

/** Whether a line earns: not marked `pointNotApplicable`, and a sale (salesDivision 0). */
export function lineEarns(line: SmaregiDetail): boolean {
  return line.pointNotApplicable !== '1' && line.salesDivision !== '1';
}

export function transactionAmount(tx: SmaregiTransaction, pointsSpent: PointsSpentRule): TransactionAmount {
  const lines = tx.details;
  if (lines && lines.length > 0) {
    const earning = lines.filter(lineEarns);
    const lessOther = linesBeforeOtherDiscounts(tx, lines, pointsSpent);
    return {
      amount: sumDecimals(earning.map((l) => lineAmount(l, pointsSpent, lessOther))),
      taxesIncluded: earning.some((l) => l.taxDivision === '0'),
    };
  }
  // No details (a list entry): the header, which cannot leave pointNotApplicable lines out.
  const off = [tx.subtotalDiscountPrice, tx.couponDiscount, tx.taxInclude];
  if (pointsSpent === 'discount') off.push(tx.pointDiscount);
  return { amount: subtractDecimals(dec(tx.subtotal), sumDecimals(off.map(dec))), taxesIncluded: dec(tx.taxInclude).units !== 0n };
}
