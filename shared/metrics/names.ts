/**
 * Every CloudWatch metric name the code emits, in one list shared by the emitters, the alarms and
 * the dashboard, so a widget can never point at a metric nobody publishes. Namespace: METRICS_NAMESPACE
 * (POWERTOOLS_METRICS_NAMESPACE in the functions).
 */
export const METRICS_NAMESPACE = 'LoyaltyPoints';

export const METRIC = {
  // processing (process-events)
  outcomePrefix: 'Outcome_',
  retries: 'Retries',
  pointsCredited: 'PointsCredited',
  pointsDebited: 'PointsDebited',
  reconciliations: 'Reconciliations',
  /** An event set aside because a points call of its order may still land (the in-doubt horizon, shared/points/engine). */
  callsInDoubt: 'CallsInDoubt',
  /** A history search that stopped on its page guard before reaching the call's send: in doubt, never "absent". */
  searchesIncomplete: 'SearchesIncomplete',
  /** A refund set aside while a sibling refund of its order is unfinished with a debit that may still land (shared/points/siblings.ts). */
  siblingRefundsWaiting: 'SiblingRefundsWaiting',
  upstreamLatency: 'UpstreamLatency',
  upstreamErrors: 'UpstreamErrors',
  /** `UpstreamCalls_<operation>`: one per Open API call, per endpoint (the rate budget is per endpoint). */
  upstreamCallsPrefix: 'UpstreamCalls_',
  // waiting without failing, outages (process-events)
  eventsDeferred: 'EventsDeferred',
  deferredEventAgeSeconds: 'DeferredEventAgeSeconds',
  /** An event put back because the shared upstream budget had no slot for its call in time: a wait, not an upstream error. */
  budgetDeferrals: 'BudgetDeferrals',
  circuitBreakerOpen: 'CircuitBreakerOpen',
  /** 1 while the worker's pulling is off (a planned pause, `npm run pause`, or an outage), 0 when it runs: the recovery tick, each minute. */
  pullingPaused: 'PullingPaused',
  /** Failed Smaregi Platform API reads of the worker (a deleted transaction's 404 is an answer, not counted). */
  smaregiApiErrors: 'SmaregiApiErrors',
  /** A till's plain return naming no sale, first recorded for an operator (a redelivery is not counted again). */
  unlinkedReturns: 'UnlinkedReturns',
  /** A till spend (tillPoints membership) the membership balance could not cover in full: the shortfall is recorded. */
  tillSpendShortfalls: 'TillSpendShortfalls',
  // intake (receive-webhook); dimensions: source, kind
  deliveriesAccepted: 'DeliveriesAccepted',
  deliveriesIgnored: 'DeliveriesIgnored',
  deliveriesRefused: 'DeliveriesRefused',
  quarantinedDeliveries: 'QuarantinedDeliveries',
  /** A quarantined delivery whose body was over the table's item limit even compressed: hash and headers only. */
  quarantinedBodiesNotKept: 'QuarantinedBodiesNotKept',
  /** Authentic Shopify deliveries whose X-Shopify-API-Version is not the source's apiVersion. */
  deliveriesOtherApiVersion: 'DeliveriesOtherApiVersion',
  // operations (the scheduled audit, functions/audit-ledger.ts)
  auditDrift: 'AuditDrift',
  auditRecords: 'AuditRecords',
  /** Extra history entries of a duplicated marker the audit reversed (a request that landed after every horizon). */
  duplicatesReversed: 'DuplicatesReversed',
  reconcileMissing: 'ReconcileMissing',
  // redemptions (process-events, sweep-redemptions: docs/redemption.md)
  /** Points of a code given back, then taken again because an order of its customer used it (a code used around its end). */
  redemptionClawbacks: 'RedemptionClawbacks',
  /** An order naming a redemption's code that counts for nothing (another customer's, or a second order). */
  redemptionMisuses: 'RedemptionMisuses',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** The per-outcome counter of process-events (`Outcome_credited`, ...; `Outcome_unexpected_error` for a throw). */
export const outcomeMetric = (kind: string): string => `${METRIC.outcomePrefix}${kind}`;

/** The outcome process-events counts when processing threw instead of answering an outcome. */
export const UNEXPECTED_ERROR_OUTCOME = 'unexpected_error';

/** The per-endpoint call counter of process-events (`UpstreamCalls_listPoints`, ...). */
export const upstreamCallsMetric = (operation: string): string => `${METRIC.upstreamCallsPrefix}${operation}`;
