import { METRIC } from '../metrics/index.js';

/**
 * A scheduled reconcile run's figures, the same for every sender (Shopify, Smaregi): the metric
 * ReconcileMissing (dimension source, alarmed) and the summary line `reconcile: scanned=N missing=M enqueued=E`.
 */
export interface RunSinks {
  logger: { info(message: string, extra?: Record<string, unknown>): void };
  metrics: {
    addDimension(name: string, value: string): void;
    addMetric(name: string, unit: 'Count', value: number): void;
  };
}

export function summaryLine(r: { scanned: number; missing: number; enqueued: number }): string {
  return `reconcile: scanned=${r.scanned} missing=${r.missing} enqueued=${r.enqueued}`;
}

export function recordRun(
  sinks: RunSinks,
  source: string,
  result: { scanned: number; missing: number; enqueued: number },
  window: { since: Date; until: Date },
): void {
  sinks.metrics.addDimension('source', source);
  sinks.metrics.addMetric(METRIC.reconcileMissing, 'Count', result.missing);
  sinks.logger.info(summaryLine(result), { source, ...result, since: window.since.toISOString(), until: window.until.toISOString() });
}
