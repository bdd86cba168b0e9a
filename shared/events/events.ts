import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales (~360 KB) from Lambda bundles
import { lazyObject, lazySchema } from '../schema/index.js';

/**
 * The canonical events: the only thing that crosses from intake (receive-webhook) to processing
 * (process-events). Every webhook source turns its own payload into one of these.
 */

/** How a customer is found in the membership service: external key + external ID. */
export const CustomerRef = lazyObject(z.object, () => ({
  externalKey: z.string().min(1).max(64),
  externalId: z.string().min(1).max(255),
  /** `unique_id`: externalId is the member's unique_id (their membership number), looked up as such (Smaregi `memberLookup`). */
  lookup: z.literal('unique_id').optional(),
}));
export type CustomerRef = z.infer<typeof CustomerRef>;

/** Delivery metadata kept with the event for tracing (what the sender said about this delivery). */
export const Delivery = lazyObject(z.object, () => ({
  /** Unique per delivery attempt family: Shopify's X-Shopify-Webhook-Id, POS's receipt/return id. */
  id: z.string().min(1),
  topic: z.string().min(1),
  shopDomain: z.string().optional(),
  apiVersion: z.string().optional(),
  webhookId: z.string().optional(),
  eventId: z.string().optional(),
  triggeredAt: z.string().optional(),
  /** When intake received it (ISO): set by intake, carried in the message for the activity record. */
  receivedAt: z.string().optional(),
}));
export type Delivery = z.infer<typeof Delivery>;

/**
 * An exact amount as a plain decimal string ("414.95", "12000", "1.250"), in the same basis as the
 * integer amount beside it but not rounded: refund shares are computed from these when present.
 */
export const ExactAmount = lazySchema(() => z.string().regex(/^\d{1,18}(?:\.\d{1,12})?$/, 'expected a plain decimal such as "414.95"'));

/** A signed exact decimal ("-12.5"): a refund's parts may be negative (an adjustment giving money back). */
export const SignedExact = lazySchema(() => z.string().regex(/^-?\d{1,18}(?:\.\d{1,12})?$/, 'expected a plain decimal such as "-12.50"'));

/** Which part of a sale earns points. */
export const AmountBasis = lazySchema(() =>
  z.enum([
    /** Subtotal after discounts, without tax and shipping (default). */
    'subtotal_excluding_tax',
    /** Subtotal after discounts as the sender states it (includes tax when prices include tax). */
    'subtotal',
    /** Everything the customer paid: subtotal, shipping and tax. */
    'total',
  ]),
);
export type AmountBasis = z.infer<typeof AmountBasis>;

/**
 * How a purchase's eligible amount was measured: the basis, whether the sender's prices include tax
 * (as the sale's own payload said) and the rounding rule. Kept with the order, so its refunds are
 * measured the same way whatever their own payload says (Shopify refunds do not say whether prices
 * include tax) and whatever a setting says later.
 */
export const AmountTerms = lazyObject(z.object, () => ({
  basis: AmountBasis,
  taxesIncluded: z.boolean(),
  rule: z.enum(['major_floor', 'minor']),
}));
export type AmountTerms = z.infer<typeof AmountTerms>;

/**
 * A refund's money as its sender states it, before any basis is applied: the goods' price (in the
 * sender's price terms: tax included when the shop's prices include it) and their tax, and the same
 * for shipping. Processing measures them with the purchase's terms.
 */
export const RefundParts = lazyObject(z.object, () => ({
  price: SignedExact,
  tax: SignedExact,
  shippingPrice: SignedExact,
  shippingTax: SignedExact,
}));
export type RefundParts = z.infer<typeof RefundParts>;

/** A sender's part of a thin event: its `kind`, and what its sender's schema (shared/sources/<kind>) checks. */
const SenderPart = lazyObject(z.looseObject, () => ({ kind: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/) }));

const common = () => ({
  /** Stable id of the business event, the same for every delivery of it (e.g. `shopify:order:123`). */
  eventId: z.string().min(1),
  source: z.string().min(1),
  orderId: z.string().min(1),
  /**
   * null: the sale has no customer reference (recorded as skipped, not an error). A refund can be
   * null when its sender does not name the customer (Shopify refunds/create): processing then uses
   * the customer recorded with the purchase.
   */
  customer: CustomerRef.nullable(),
  currency: z.string().min(1),
  /** ISO 8601 with offset. */
  occurredAt: z.string().min(1),
  /** Shown to the customer in the point history (already rendered from the source's template). */
  pointTitle: z.string().max(255),
  /** Sender's test event: recorded as skipped. */
  test: z.boolean(),
  delivery: Delivery,
});

/** When a sale's points are earned: `fulfilled` (Shopify: the order shipped) or `days` after payment. */
export const EarnAfter = lazySchema(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('fulfilled') }),
    z.object({
      kind: z.literal('days'),
      days: z.number().int().min(1).max(365),
      /**
       * The sender tells the sale's current state (Smaregi's transaction, re-read at each delivery): a
       * delivery before the day with another amount or member revises what the order will earn on, rather
       * than being a duplicate of the first (shared/points/provisional.ts, `revisionOf`).
       */
      current: z.literal(true).optional(),
    }),
  ]),
);
export type EarnAfter = z.infer<typeof EarnAfter>;
/** A line of an order (its sender's id) and a quantity. */
export const LineQuantity = lazyObject(z.object, () => ({
  id: z.string().regex(/^\d{1,20}$/),
  quantity: z.number().int().nonnegative().max(999_999_999),
}));
export type LineQuantity = z.infer<typeof LineQuantity>;
/** Lines an event carries at most (an order of more is followed by its cancellation only). */
export const MAX_LINES = 1000;

export const PurchaseEvent = lazyObject(z.object, () => ({
  type: z.literal('purchase'),
  ...common(),
  /** Amount that earns points, in integer units of the source's amount rule. */
  eligibleAmount: z.number().int().nonnegative().max(999_999_999),
  /** The eligible amount exactly, before the amount rule rounded it (optional: older events lack it). */
  eligibleExact: ExactAmount.optional(),
  /**
   * A thin event's sender part: the purchase names its sale only, or leaves its amount to another record
   * of its sender, and the sender resolves it into canonical events before the points protocol runs
   * (shared/sources/<kind>/resolution.ts, which holds the part's schema). `amountFrom`: Square's order;
   * `stateFrom`: Smaregi's transaction. Only the part's `kind` is read here.
   */
  amountFrom: SenderPart.optional(),
  stateFrom: SenderPart.optional(),
  /** Set by the sender's resolution (Square's order), never by intake: the amount sent to the points calculation. */
  calculationAmount: z.number().int().nonnegative().max(999_999_999).optional(),
  /** How the eligible amount was measured; its refunds are measured the same way (optional: older events). */
  terms: AmountTerms.optional(),
  /** Days until the granted points expire; null: the membership service's default expiry. */
  expiryDays: z.number().int().positive().nullable(),
  /**
   * The sender may name the customer of this sale only in a later delivery (Square's asynchronous
   * customer matching): without a customer, the order stays open to that delivery this long.
   */
  customerMatchWindowSeconds: z.number().int().positive().optional(),
  /** The store the sale was made in, as its sender says (Smaregi's storeId): kept with the order for the points report. */
  store: z.string().max(64).optional(),
  /** The discount codes the order used (Shopify): a redemption's code marks it used (docs/redemption.md). */
  discountCodes: z.array(z.string().min(1).max(255)).max(50).optional(),
  /**
   * Every line of an order that used a discount code, with its quantity: the redemption is refunded in full
   * once every line's quantity is (docs/redemption.md). Absent: unknown, only a cancellation is in full.
   */
  orderLines: z.array(LineQuantity).max(MAX_LINES).optional(),
  /**
   * Set by intake for Shopify's `orders/create` of an order using a code: nothing to credit (points come
   * with `orders/paid`), only the code's order to follow (reserved while its payment is pending).
   */
  orderCreated: z.literal(true).optional(),
  /**
   * The sender's record is no sale that earns (a Smaregi deposit, a sale at another store), or it names a
   * customer a privacy erasure removed (`customer_redacted`): recorded skipped with this reason.
   */
  notEarning: z.enum(['not_a_sale', 'other_store', 'layaway_pickup', 'customer_redacted']).optional(),
  /**
   * A fixed points grant instead of the calculation on the amount: negative deducts (points spent at a
   * Smaregi till), positive gives back. Same claim, marker and record as any purchase.
   */
  fixedPoints: z.number().int().min(-999_999_999).max(999_999_999).optional(),
  /**
   * Set by processing, never by intake: an order that ended customer_not_found, handed to a message of
   * its own by its customer's link or enrolment to be credited now (shared/customers/retro.ts).
   */
  customerLinked: z.literal(true).optional(),
  /**
   * When the points are earned (the source's `earnAfter`, issue 53): absent, at payment. `fulfilled`: once
   * the order ships; `days`: that many days after payment. Until then the order holds provisional points.
   */
  earnAfter: EarnAfter.optional(),
  /**
   * The moment has come (set by the sender's fulfilment webhook, or by the ticker for `days`): the order's
   * provisional points, less what refunds took before, are credited now.
   */
  earnMoment: z.enum(['fulfilled', 'due', 'partial']).optional(),
  /**
   * `earnMoment: partial` (Shopify's orders/partially_fulfilled): the exact fraction of the order's lines
   * its successful fulfilments ship so far (cumulative), as integer texts; the order earns on that share.
   */
  shipped: z.object({ num: z.string().regex(/^\d{1,200}$/), den: z.string().regex(/^[1-9]\d{0,199}$/) }).optional(),
  /** The order's name as the shop shows it (Shopify `#1001`): the points page names provisional orders by it. */
  orderName: z.string().max(255).optional(),
}));
export type PurchaseEvent = z.infer<typeof PurchaseEvent>;

export const RefundEvent = lazyObject(z.object, () => ({
  type: z.literal('refund'),
  ...common(),
  /** Unique within the order (Shopify refund id, POS return id, `cancel` for a cancellation). */
  refundId: z.string().min(1),
  /** Amount refunded by this refund, in the same integer units as the purchase's eligibleAmount. */
  refundAmount: z.number().int().nonnegative(),
  /** This refund's amount exactly, in the basis of the purchase's eligibleExact (optional). */
  refundExact: ExactAmount.optional(),
  /**
   * The refund as its sender states it: when present, processing measures it with the terms kept with
   * the purchase, and refundExact / refundAmount are only the fallback for orders recorded without terms.
   */
  parts: RefundParts.optional(),
  /** true: everything not yet refunded is refunded by this event (an order cancellation). */
  refundsRemainder: z.boolean(),
  /** The sender says the refund belongs to no sale (Square `unlinked`): recorded as skipped. */
  unlinked: z.boolean().optional(),
  /** The lines this refund gives back and how many of each (Shopify's refund_line_items: line_item_id, quantity). */
  refundedLines: z.array(LineQuantity).max(MAX_LINES).optional(),
  /**
   * Set by intake for a Shopify order cancelled before it was paid: nothing was credited, only a
   * redemption's code reserved by the order gives its points back.
   */
  cancelledUnpaid: z.literal(true).optional(),
}));
export type RefundEvent = z.infer<typeof RefundEvent>;

export const PointsEvent = lazySchema(() => z.discriminatedUnion('type', [PurchaseEvent, RefundEvent]));
export type PointsEvent = z.infer<typeof PointsEvent>;

/**
 * Something happened to a shop customer that may make them earn: `enrol` (the shop created the
 * customer and the source enrols new customers: register a member, exactly once) or `linked` (the
 * customer was linked to a member through the App Proxy). Either way their purchases of the last
 * `retroCreditDays` that found no member are then credited, once.
 */
export const CustomerEvent = lazyObject(z.object, () => ({
  type: z.literal('customer'),
  /** `<source>:customer:<id>:<action>`: the same for every delivery of it. */
  eventId: z.string().min(1),
  source: z.string().min(1),
  action: z.enum(['enrol', 'linked']),
  customer: CustomerRef,
  /** ISO 8601 with offset. */
  occurredAt: z.string().min(1),
  /** Days back from now whose purchases that found no member are credited (0: none). */
  retroCreditDays: z.number().int().nonnegative().max(365),
  delivery: Delivery,
}));
export type CustomerEvent = z.infer<typeof CustomerEvent>;

/**
 * A shop's privacy request (Shopify's mandatory compliance topics): `redact_customer` removes what
 * identifies the customer from everything the bridge holds, keeping the books (amounts, markers,
 * outcomes, member ids); `report_customer` reports what is held for them; `redact_shop` does the
 * first for every customer of the shop. Only ids cross the queue: never an e-mail or a phone number.
 */
export const PrivacyEvent = lazyObject(z.object, () => ({
  type: z.literal('privacy'),
  /** `<source>:privacy:<action>:<delivery id>`: the same for every retry of one request. */
  eventId: z.string().min(1),
  source: z.string().min(1),
  action: z.enum(['redact_customer', 'report_customer', 'redact_shop']),
  /** `<shop>.myshopify.com`, as the signed body names it. */
  shopDomain: z.string().min(1).max(255),
  /**
   * true when the source's `shopDomains` lists this shop alone: its records that name no shop (made
   * before records named it) are this shop's. Otherwise shop/redact removes only records naming the shop.
   */
  soleShop: z.boolean().optional(),
  /** The shop customer (null for `redact_shop`). */
  customer: CustomerRef.nullable(),
  /** The orders the request names (`orders_to_redact`, `orders_requested`). */
  orderIds: z.array(z.string().regex(/^[0-9]{1,20}$/)).max(5000),
  /** The shop's own id of the request (Shopify's `data_request.id`), to answer it by. */
  requestId: z.string().max(64).optional(),
  /** When the sender triggered it (ISO 8601), when it says. */
  occurredAt: z.string().min(1).optional(),
  delivery: Delivery,
}));
export type PrivacyEvent = z.infer<typeof PrivacyEvent>;

/**
 * A web points change to mirror to a member's till record (a Smaregi source under `tillPoints: membership`):
 * the App Proxy, which holds no Smaregi access, records the step (`till-mirror#<source>#<marker>`, its
 * points and member) and queues this; the worker, which holds it, sends the add (shared/sources/smaregi).
 * Ids only: the step says the rest.
 */
export const TillMirrorEvent = lazyObject(z.object, () => ({
  type: z.literal('till_mirror'),
  /** `<source>:till-mirror:<marker>`: the same for every copy of one step's message. */
  eventId: z.string().min(1),
  /** The Smaregi source whose till holds the points. */
  source: z.string().min(1),
  /** The marker of the points call mirrored (the step's key). */
  marker: z.string().min(1).max(512),
  /** The member: one member's mirrors are one FIFO group, in the order they were made. */
  memberId: z.string().min(1).max(128),
  delivery: Delivery,
}));
export type TillMirrorEvent = z.infer<typeof TillMirrorEvent>;

/**
 * What intake and the customer routes queue: a points event, a customer event or a privacy request (a
 * till mirror, TillMirrorEvent, is queued by the App Proxy on its own: tillMirrorMessage).
 */
export const QueuedEvent = lazySchema(() => z.discriminatedUnion('type', [PurchaseEvent, RefundEvent, CustomerEvent, PrivacyEvent]));
export type QueuedEvent = z.infer<typeof QueuedEvent>;
