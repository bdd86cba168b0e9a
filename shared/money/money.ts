import * as z from 'zod';
import { lazySchema } from '../schema/index.js';

/**
 * Exact money arithmetic. Amounts arrive as decimal strings ("1234.50"); they are summed and
 * converted with BigInt only, so no floating-point rounding can invent or lose a unit.
 */

/** An exact decimal: value = units / 10^scale. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** How an amount becomes the integer the membership service computes points from. */
export const AmountRule = lazySchema(() => z.enum(['major_floor', 'minor']));
export type AmountRule = z.infer<typeof AmountRule>;

// Lengths are bounded so a hostile payload cannot make BigInt work on megabyte-long numbers.
const DECIMAL = /^(-)?(\d{1,18})(?:\.(\d{1,12}))?$/;

export const ZERO: Decimal = { units: 0n, scale: 0 };

/** Parses "12", "12.5", "-0.75"; undefined for anything else (exponents, spaces, empty). */
export function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const fraction = m[3] ?? '';
  const units = BigInt(`${m[2]}${fraction}`);
  return { units: m[1] ? -units : units, scale: fraction.length };
}

function rescale(d: Decimal, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale);
}

export function addDecimals(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function negateDecimal(a: Decimal): Decimal {
  return { units: -a.units, scale: a.scale };
}

export function subtractDecimals(a: Decimal, b: Decimal): Decimal {
  return addDecimals(a, negateDecimal(b));
}

export function sumDecimals(values: readonly Decimal[]): Decimal {
  return values.reduce(addDecimals, ZERO);
}

export function compareDecimals(a: Decimal, b: Decimal): number {
  const diff = subtractDecimals(a, b).units;
  return diff === 0n ? 0 : diff < 0n ? -1 : 1;
}

// ISO 4217 minor-unit exponents that differ from the common 2.
const CURRENCY_DIGITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** Digits after the decimal point of a currency's minor unit (ISO 4217; 2 when not listed). */
export function currencyDigits(currency: string): number {
  return CURRENCY_DIGITS[currency.toUpperCase()] ?? 2;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/**
 * Integer units of an amount by the configured rule, rounded down: `major_floor` gives whole
 * major units (dollars, yen), `minor` whole minor units (cents; yen again for JPY).
 */
export function toUnits(amount: Decimal, currency: string, rule: AmountRule): bigint {
  const targetScale = rule === 'minor' ? currencyDigits(currency) : 0;
  if (amount.scale <= targetScale) return rescale(amount, targetScale);
  return floorDiv(amount.units, 10n ** BigInt(amount.scale - targetScale));
}

/** The decimal string of an integer number of minor units ("1234" with 2 digits -> "12.34"). */
export function formatMinorUnits(units: bigint, digits: number): string {
  const sign = units < 0n ? '-' : '';
  const abs = (units < 0n ? -units : units).toString().padStart(digits + 1, '0');
  if (digits === 0) return `${sign}${abs}`;
  return `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/**
 * The canonical decimal string of an exact decimal, without trailing fraction zeros ({41495n, 2} ->
 * "414.95", {30000n, 1} -> "3000"): the same amount reads the same whether a sender wrote "3000",
 * "3000.0" or "3000.00" (the webhook and the Admin API do differ so).
 */
export function formatDecimal(d: Decimal): string {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return formatMinorUnits(units, scale);
}

/** A refund's decimal strings as its sender states them (shared/events' `RefundParts` is one). */
export interface RefundAmounts {
  readonly price: string;
  readonly tax: string;
  readonly shippingPrice: string;
  readonly shippingTax: string;
}

/** The purchase's measuring terms that a refund's amount depends on (shared/events' `AmountTerms` is one). */
export interface MeasureTerms {
  readonly basis: 'subtotal_excluding_tax' | 'subtotal' | 'total';
  readonly taxesIncluded: boolean;
}

const dec = (text: string): Decimal => parseDecimal(text) ?? ZERO;

/**
 * A refund's amount in the purchase's terms: the same basis, and tax taken out only when the
 * purchase's own payload said its prices include tax. Never negative.
 */
export function measureRefund(parts: RefundAmounts, terms: MeasureTerms): Decimal {
  const total = terms.basis === 'total';
  const price = total ? addDecimals(dec(parts.price), dec(parts.shippingPrice)) : dec(parts.price);
  const tax = total ? addDecimals(dec(parts.tax), dec(parts.shippingTax)) : dec(parts.tax);
  let amount = price;
  if (terms.basis === 'subtotal_excluding_tax' && terms.taxesIncluded) amount = subtractDecimals(price, tax);
  if (total && !terms.taxesIncluded) amount = addDecimals(price, tax);
  return compareDecimals(amount, ZERO) > 0 ? amount : ZERO;
}
