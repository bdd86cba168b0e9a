/**
 * Exact decimal money: parsing, summing and converting amounts with BigInt only, never a float. A leaf:
 * it imports no other shared/ module, so sources (measuring a sale) and points (the refund arithmetic)
 * both use it without depending on each other.
 */
export {
  AmountRule,
  addDecimals,
  compareDecimals,
  currencyDigits,
  type Decimal,
  formatDecimal,
  formatMinorUnits,
  type MeasureTerms,
  measureRefund,
  negateDecimal,
  parseDecimal,
  type RefundAmounts,
  subtractDecimals,
  sumDecimals,
  toUnits,
  ZERO,
} from './money.js';
