/**
 * Metrics: the names every function and alarm agrees on, Embedded Metric Format lines for the
 * functions that write their own, and the Powertools Metrics the others use.
 */
export { type EmfRecord, type EmfUnit, emfCountLine, emfLine } from './emf.js';
export { METRIC, type MetricName, METRICS_NAMESPACE, outcomeMetric, UNEXPECTED_ERROR_OUTCOME, upstreamCallsMetric } from './names.js';
export { metricsFromEnv } from './powertools-metrics.js';
