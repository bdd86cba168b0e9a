import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles

/**
 * The parts of a Smaregi POS transaction (Platform API `GET /{contract_id}/pos/transactions/{id}` with
 * `with_details=all&with_customer=all`) the points are read from. Smaregi writes every amount and id as
 * a JSON string ("11000", "-3300"); they stay strings here and are only ever parsed exactly.
 * Field names and divisions: feedforce/smaregi-platform-api `smaregi-api.yaml` (see
 * test/fixtures/smaregi/SOURCES.md); unknown fields are kept, so a seeded record reads back as sent.
 */
const Id = z.string().regex(/^[0-9]{1,20}$/, 'expected a Smaregi id: 1-20 digits as a string');
/** A signed decimal string: Smaregi's amounts ("11000", "-1000", "10.5"). */
export const Amount = z.string().regex(/^-?\d{1,15}(?:\.\d{1,6})?$/, 'expected an amount as a decimal string such as "11000"');
const Division = z.string().regex(/^[0-9A-Z]{1,2}$/);

export const SmaregiCustomer = z.looseObject({
  customerId: Id,
  customerCode: z.string().min(1).max(255).nullish(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
});
export type SmaregiCustomer = z.infer<typeof SmaregiCustomer>;

export const SmaregiDetail = z.looseObject({
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
  /** "1": the line earns no points (a gift card, a tobacco product...). */
  pointNotApplicable: z.string().nullish(),
  /** "1": the line is not a sale (売上対象外: deposits, gift certificates sold). */
  salesDivision: z.string().nullish(),
});
export type SmaregiDetail = z.infer<typeof SmaregiDetail>;

export const SmaregiTransaction = z.looseObject({
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
  /** The other record of a return-cancellation; published material disagrees on which side carries it. */
  disposeServerTransactionHeadId: Id.nullish(),
  subtotal: Amount,
  subtotalDiscountPrice: Amount.nullish(),
  pointDiscount: Amount.nullish(),
  couponDiscount: Amount.nullish(),
  total: Amount,
  taxInclude: Amount.nullish(),
  taxExclude: Amount.nullish(),
  spendPoint: Amount.nullish(),
  customerId: Id.nullish(),
  storeId: z.string().nullish(),
  updDateTime: z.string().nullish(),
  details: z.array(SmaregiDetail).optional(),
  customer: SmaregiCustomer.nullish(),
});
export type SmaregiTransaction = z.infer<typeof SmaregiTransaction>;

/** One entry of the transaction list (`GET /{contract_id}/pos/transactions`): the id and when it changed. */
export const SmaregiTransactionListItem = z.looseObject({
  transactionHeadId: Id,
  transactionDateTime: z.string().optional(),
  updDateTime: z.string().nullish(),
});
export type SmaregiTransactionListItem = z.infer<typeof SmaregiTransactionListItem>;
