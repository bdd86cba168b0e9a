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
  upstreamLatency: 'UpstreamLatency',
  upstreamErrors: 'UpstreamErrors',
  // waiting without failing, outages (process-events)
  eventsDeferred: 'EventsDeferred',
  deferredEventAgeSeconds: 'DeferredEventAgeSeconds',
  circuitBreakerOpen: 'CircuitBreakerOpen',
  // intake (receive-webhook); dimensions: source, kind
  deliveriesAccepted: 'DeliveriesAccepted',
  deliveriesIgnored: 'DeliveriesIgnored',
  deliveriesRefused: 'DeliveriesRefused',
  quarantinedDeliveries: 'QuarantinedDeliveries',
  // operations
  auditDrift: 'AuditDrift',
  reconcileMissing: 'ReconcileMissing',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];
