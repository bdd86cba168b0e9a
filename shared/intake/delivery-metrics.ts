import { emfLine, METRIC, METRICS_NAMESPACE } from '../metrics/index.js';
import type { IntakeResponse } from './intake.js';

/**
 * One metric per webhook delivery, with dimensions `service`, `source` and `kind`:
 * DeliveriesAccepted (kind: the event type, purchase or refund), DeliveriesIgnored (kind: ignored)
 * or DeliveriesRefused (kind: the refusal, e.g. invalid_signature); and DeliveriesOtherApiVersion (kind: the
 * version received) for an authentic delivery made with another API version than the source's. A source that is not configured
 * counts as `unknown`, so a scan of random URLs cannot create metrics by the thousand.
 */
export type DeliveryRecorder = (source: string | undefined, response: IntakeResponse) => void;

export interface DeliveryMetricsOptions {
  namespace: string;
  service: string;
  /** Names of the configured sources. */
  sources: ReadonlySet<string>;
  write?: (line: string) => void;
  now?: () => number;
}

/** What a delivery counts as: the metric name and its `kind`. */
export function deliveryMetric(response: IntakeResponse): { name: string; kind: string } {
  const answer = response.answer;
  if ('error' in answer) return { name: METRIC.deliveriesRefused, kind: answer.error.kind };
  if (answer.status === 'ignored') {
    // Replays past the ledger's retention are worth telling apart from topics we do not handle.
    return { name: METRIC.deliveriesIgnored, kind: answer.reason.startsWith('too_old') ? 'too_old' : 'ignored' };
  }
  if (answer.status === 'quarantined') return { name: METRIC.deliveriesAccepted, kind: 'quarantined' };
  return { name: METRIC.deliveriesAccepted, kind: response.eventType ?? 'event' };
}

export function createDeliveryMetrics(options: DeliveryMetricsOptions): DeliveryRecorder {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  return (source, response) => {
    const { name, kind } = deliveryMetric(response);
    const dimensions = { service: options.service, source: source !== undefined && options.sources.has(source) ? source : 'unknown' };
    write(
      emfLine({
        namespace: options.namespace,
        dimensions: { ...dimensions, kind },
        metrics: { [name]: { unit: 'Count', value: 1 } },
        timestamp: now(),
      }),
    );
    if (response.apiVersionMismatch !== undefined) {
      // Its own line: `kind` is the version the delivery came with (a handful of values at most).
      write(
        emfLine({
          namespace: options.namespace,
          dimensions: { ...dimensions, kind: response.apiVersionMismatch.received },
          metrics: { [METRIC.deliveriesOtherApiVersion]: { unit: 'Count', value: 1 } },
          timestamp: now(),
        }),
      );
    }
  };
}

/** Namespace and service as the Powertools functions take them (POWERTOOLS_METRICS_NAMESPACE / _SERVICE_NAME). */
export function deliveryMetricsFromEnv(env: NodeJS.ProcessEnv, sources: Iterable<string>): DeliveryRecorder {
  return createDeliveryMetrics({
    namespace: env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
    service: env.POWERTOOLS_SERVICE_NAME || 'receive-webhook',
    sources: new Set(sources),
  });
}
