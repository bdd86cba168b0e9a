import { METRICS_NAMESPACE, type MetricName } from './names.js';

/**
 * One count in CloudWatch's embedded metric format: a JSON line on stdout, which Lambda ships to
 * CloudWatch Logs and CloudWatch turns into the metric, with no SDK call and no client to load.
 * Dimension: `service`, as Powertools emits it, so the alarms find it the same way.
 */
export function emfCountLine(options: { namespace?: string; service: string; name: MetricName; value?: number; nowMs: number }): string {
  const namespace = options.namespace ?? METRICS_NAMESPACE;
  return JSON.stringify({
    _aws: {
      Timestamp: options.nowMs,
      CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [['service']], Metrics: [{ Name: options.name, Unit: 'Count' }] }],
    },
    service: options.service,
    [options.name]: options.value ?? 1,
  });
}
