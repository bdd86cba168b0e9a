/** The shapes of a chaos scenario, apart from its generator (square.ts adds Square's events to a scenario). */
export type SourceName = 'shopify' | 'shopify-later' | 'pos' | 'square' | 'smaregi';

/** Grant rate of each rank, as the emulator is configured for the run (exact decimals). */
export const CHAOS_RANKS = { regular: 0.01, silver: 0.03, gold: 0.05, platinum: 0.1 } as const;
export type RankName = keyof typeof CHAOS_RANKS;

export interface ChaosCustomer {
  index: number;
  loginId: string;
  rank: RankName;
  /** Shopify customer id: a 64-bit integer beyond JavaScript's safe range, sent as a JSON number. */
  shopifyId: string;
  /** POS member card number. */
  posCard: string;
  /** false: the sender knows the customer, the membership service does not (customer not found). */
  registered: boolean;
  /**
   * Linked to the membership service mid-run (links.ts): `app_proxy`, a member whose shop account is
   * linked through the App Proxy (no `shopify` external id before); `enrolment`, a shop customer the
   * service does not know, enrolled by customers/create. Their Shopify orders before that end
   * customer_not_found, and are credited once after it.
   */
  linkLater?: 'app_proxy' | 'enrolment';
}

/** A link made during the run, before the delivery at position `at` (links.ts). */
export interface LinkStep {
  customer: number;
  via: 'app_proxy' | 'enrolment';
  at: number;
}

export interface PurchaseSpec {
  kind: 'purchase';
  /** Stable key of the business event within the run. */
  key: string;
  source: SourceName;
  orderId: string;
  /** null: the sale has no customer reference. */
  customer: number | null;
  /** Eligible amount in whole currency units (the payload carries it as "N.00"). */
  amount: number;
  test: boolean;
}

export interface RefundSpec {
  kind: 'refund';
  key: string;
  source: SourceName;
  orderId: string;
  refundId: string;
  customer: number | null;
  /** Amount this refund refunds, whole units; for a cancellation or void, what remained when it was issued. */
  amount: number;
  /** A cancellation (Shopify) or full return (POS): everything not yet refunded is refunded. */
  cancel: boolean;
  /** No purchase exists for this order (a refund the shop sends for an order we never saw). */
  orphan: boolean;
}

export type EventSpec = PurchaseSpec | RefundSpec;

export interface DeliveryStep {
  /** Index into `events`. */
  event: number;
  /** The sender's delivery id (a retry repeats it; a second subscription or a resend uses a new one). */
  deliveryId: string;
  /** How many copies are sent at once (2: a concurrent duplicate). */
  copies: number;
  kind: 'first' | 'retry' | 'resend' | 'concurrent';
  /** Square: this payment.updated does not name the customer yet (square.ts). */
  withoutCustomer?: boolean;
  /** A `shopify-later` purchase's orders/fulfilled: the moment its provisional points are earned (provisional.ts). */
  fulfilment?: boolean;
  /**
   * A `shopify-later` purchase's orders/partially_fulfilled: how many of the order's 3 lines (provisional.ts,
   * `orderLines`) have shipped so far, 1 or 2.
   */
  partial?: number;
}

export interface Scenario {
  seed: number;
  customers: ChaosCustomer[];
  events: EventSpec[];
  deliveries: DeliveryStep[];
  /** Customers linked or enrolled mid-run (links.ts); none when absent. */
  links?: LinkStep[];
  /** The run's campaign (model.ts, CHAOS_CAMPAIGN): Shopify orders of at least `minAmount` earn a 2x bonus. None when absent. */
  campaign?: { minAmount: number };
  counts: {
    purchases: number;
    refunds: number;
    cancellations: number;
    orphanRefunds: number;
    /** Deliveries beyond the first of each event. */
    duplicates: number;
    concurrentDuplicates: number;
    /** Refunds delivered before their purchase, plus swapped neighbours. */
    reordered: number;
    /** Members linked through the App Proxy mid-run, and shop customers enrolled mid-run (links.ts). */
    links?: number;
    enrolments?: number;
    /** Orders of the source earning at fulfilment, and their orders/fulfilled deliveries (provisional.ts). */
    provisional?: number;
    fulfilments?: number;
    /** Their orders/partially_fulfilled deliveries (provisional.ts). */
    partials?: number;
  };
}

export interface ScenarioOptions {
  events: number;
  seed: number;
  /**
   * Whether a share of the Shopify orders goes to the provisional source (provisional.ts; default true).
   * Off in a run that reconciles lost deliveries: both Shopify sources are one shop there, and the
   * reconcile of `shopify` would take the other source's orders for its own missing ones (a deployment
   * has one source per shop).
   */
  provisional?: boolean;
}
