import { METRICS_NAMESPACE, type MetricName } from '../metrics/names.js';

/**
 * Counts intake metrics as CloudWatch Embedded Metric Format lines on stdout (what Powertools
 * Metrics writes), without its library: receive-webhook's bundle stays small. One line per count.
 */
export function emfCounter(
  env: NodeJS.ProcessEnv,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  now: () => number = Date.now,
): (metric: MetricName, dims: { source: string; kind: string }) => void {
  const namespace = env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE;
  return (metric, dims) =>
    write(
      JSON.stringify({
        _aws: {
          Timestamp: now(),
          CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [['source', 'kind']], Metrics: [{ Name: metric, Unit: 'Count' }] }],
        },
        source: dims.source,
        kind: dims.kind,
        [metric]: 1,
      }),
    );
}
