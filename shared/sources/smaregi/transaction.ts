import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { lazyObject, lazySchema } from '../../schema/index.js';

/**
 * The parts of a Smaregi POS transaction (Platform API `GET /{contract_id}/pos/transactions/{id}` with
 * `with_details=all&with_customer=all`) the points are read from. Smaregi writes every amount and id as
 * a JSON string ("11000", "-3300"); they stay strings here and are only ever parsed exactly.
 * Field names and divisions: feedforce/smaregi-platform-api `smaregi-api.yaml` (see
 * test/fixtures/smaregi/SOURCES.md); unknown fields are kept, so a seeded record reads back as sent.
 */
const Id = lazySchema(() => z.string().regex(/^[0-9]{1,20}$/, 'expected a Smaregi id: 1-20 digits as a string'));
/** A signed decimal string: Smaregi's amounts ("11000", "-1000", "10.5"). */
export const Amount = lazySchema(() =>
  z.string().regex(/^-?\d{1,15}(?:\.\d{1,6})?$/, 'expected an amount as a decimal string such as "11000"'),
);
const Division = lazySchema(() => z.string().regex(/^[0-9A-Z]{1,2}$/));
/** A link to another transaction: an id, or "" / "0" for none (the older API's "none"); see linkOf. */
const Link = lazySchema(() => z.string().regex(/^[0-9]{0,20}$/, 'expected a Smaregi transaction id, "0" or ""'));

export const SmaregiCustomer = lazyObject(z.looseObject, () => ({
  customerId: Id,
  customerCode: z.string().min(1).max(255).nullish(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
}));
export type SmaregiCustomer = z.infer<typeof SmaregiCustomer>;

export const SmaregiDetail = lazyObject(z.looseObject, () => ({
  transactionDetailId: z.string().optional(),
  /** 1 normal, 2 return, 3 department sale. */
  transactionDetailDivision: Division.optional(),
  /** 0 tax included in the price, 1 tax added to it, 2 non-taxable. */
  taxDivision: Division.optional(),
  taxRate: z.string().nullish(),
  quantity: Amount.optional(),
  /** The line after its own (unit) discounts, in the price's own tax terms. */
  unitDiscountedSum: Amount,
  /** The line's share of the subtotal discount, of the points spent and of the coupon discount. */
  discountPriceProportional: Amount.nullish(),
  discountPointProportional: Amount.nullish(),
  discountCouponProportional: Amount.nullish(),
  /** The line's share of the tax inside its price (taxDivision 0) and of the tax added to it (1). */
  taxIncludeProportional: Amount.nullish(),
  taxExcludeProportional: Amount.nullish(),
  /**
   * The line's share of the product-bundle, staff, sale (bargain) and rounding discounts. Whether
   * `unitDiscountedSum` is already after them is not published: money.ts decides per transaction
   * from what the customer paid (docs/smaregi.md, "Money").
   */
  productBundleProportional: Amount.nullish(),
  staffDiscountProportional: Amount.nullish(),
  bargainDiscountProportional: Amount.nullish(),
  roundingPriceProportional: Amount.nullish(),
  /** "1": the line earns no points (a gift card, a tobacco product...). */
  pointNotApplicable: z.string().nullish(),
  /** "1": the line is not a sale (売上対象外: deposits, gift certificates sold). */
  salesDivision: z.string().nullish(),
}));
export type SmaregiDetail = z.infer<typeof SmaregiDetail>;

export const SmaregiTransaction = lazyObject(z.looseObject, () => ({
  transactionHeadId: Id,
  transactionDateTime: z.string().min(1),
  /** 1 normal; 2-16 money in/out, deposits, point adjustments, tips...: no sale. */
  transactionHeadDivision: Division,
  /** "1": voided (取消). */
  cancelDivision: Division.nullish(),
  /** "1": a return sale (返品販売), not linked to the sale it returns. */
  returnSales: Division.nullish(),
  /** 0 normal, 1 the original of a return-cancellation (打消元), 2 the cancelling record (打消). */
  disposeDivision: Division.nullish(),
  /** The other record of a return-cancellation; published material disagrees on which side carries it. "0": none. */
  disposeServerTransactionHeadId: Link.nullish(),
  /** On a layaway's pick-up (a sale): the layaway (取置き, division 10) it collects. "0" or "": none. */
  layawayServerTransactionHeadId: Link.nullish(),
  /** The till's own time of the sale (an offline till sends late: this, not the server's, is the sale's time). */
  terminalTranDateTime: z.string().nullish(),
  subtotal: Amount,
  subtotalDiscountPrice: Amount.nullish(),
  pointDiscount: Amount.nullish(),
  couponDiscount: Amount.nullish(),
  total: Amount,
  taxInclude: Amount.nullish(),
  taxExclude: Amount.nullish(),
  spendPoint: Amount.nullish(),
  /** 付与ポイント: the points the transaction gave (a staff point addition, division 6, carries them here). */
  newPoint: Amount.nullish(),
  customerId: Id.nullish(),
  /** The member's code on the head (shops whose members live outside Smaregi may name the member by code only). */
  customerCode: z.string().max(255).nullish(),
  storeId: z.string().nullish(),
  updDateTime: z.string().nullish(),
  details: z.array(SmaregiDetail).optional(),
  customer: SmaregiCustomer.nullish(),
}));
export type SmaregiTransaction = z.infer<typeof SmaregiTransaction>;

/** A link field's transaction id, or undefined for none ("", "0", missing). */
export function linkOf(value: string | null | undefined): string | undefined {
  return value && /^[0-9]{1,20}$/.test(value) && !/^0+$/.test(value) ? value : undefined;
}

/**
 * One entry of the transaction list (`GET /{contract_id}/pos/transactions`): the id, when it changed and
 * the head's point fields (a mirror's settle reads what a member's till did: till-listed.ts).
 */
export const SmaregiTransactionListItem = lazyObject(z.looseObject, () => ({
  transactionHeadId: Id,
  transactionDateTime: z.string().optional(),
  updDateTime: z.string().nullish(),
  transactionHeadDivision: Division.nullish(),
  cancelDivision: Division.nullish(),
  returnSales: Division.nullish(),
  disposeDivision: Division.nullish(),
  spendPoint: Amount.nullish(),
  newPoint: Amount.nullish(),
}));
export type SmaregiTransactionListItem = z.infer<typeof SmaregiTransactionListItem>;
