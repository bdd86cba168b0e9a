import { METRICS_NAMESPACE, type MetricName } from './names.js';

/**
 * CloudWatch embedded metric format (EMF): one JSON line on stdout that CloudWatch Logs turns into
 * metrics. Written here, not taken from Powertools Metrics, for the one function that must stay light:
 * receive-webhook loads nothing heavy at init (its delivery counts).
 * Format: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */
export type EmfUnit = 'Count' | 'Milliseconds' | 'None';

export interface EmfRecord {
  namespace: string;
  /** Dimension name -> value; all of them form the metrics' one dimension set. */
  dimensions: Record<string, string>;
  metrics: Record<string, { unit: EmfUnit; value: number }>;
  /** Epoch milliseconds. */
  timestamp: number;
}

export function emfLine(record: EmfRecord): string {
  return JSON.stringify({
    _aws: {
      Timestamp: record.timestamp,
      CloudWatchMetrics: [
        {
          Namespace: record.namespace,
          Dimensions: [Object.keys(record.dimensions)],
          Metrics: Object.entries(record.metrics).map(([Name, m]) => ({ Name, Unit: m.unit })),
        },
      ],
    },
    ...record.dimensions,
    ...Object.fromEntries(Object.entries(record.metrics).map(([name, m]) => [name, m.value])),
  });
}

/** One count with the `service` dimension only, as Powertools emits it (the alarms read it so). */
export function emfCountLine(options: { namespace?: string; service: string; name: MetricName; value?: number; nowMs: number }): string {
  return emfLine({
    namespace: options.namespace ?? METRICS_NAMESPACE,
    dimensions: { service: options.service },
    metrics: { [options.name]: { unit: 'Count', value: options.value ?? 1 } },
    timestamp: options.nowMs,
  });
}
