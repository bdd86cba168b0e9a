import type { MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC } from '../metrics/index.js';
import { type AuditResult, findingLine, noteLine, summaryLine } from './findings.js';

/** Where a scheduled audit run reports: its log (findings warn, notes inform) and its metrics (AuditDrift is alarmed). */
export interface AuditReportSinks {
  logger: { info(message: string, extra?: Record<string, unknown>): void; warn(message: string, extra?: Record<string, unknown>): void };
  metrics: {
    addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): void;
    publishStoredMetrics(): void;
  };
}

/** Logs every finding and note, publishes the drift, record and reversal counts, then logs the summary line. */
export function reportAuditRun(result: AuditResult, { logger, metrics }: AuditReportSinks): void {
  for (const f of result.findings) logger.warn(findingLine(f), { finding: f });
  for (const n of result.notes) logger.info(noteLine(n), { note: n });
  metrics.addMetric(METRIC.auditDrift, 'Count', result.findings.length);
  metrics.addMetric(METRIC.auditRecords, 'Count', result.orders + result.refunds);
  metrics.addMetric(METRIC.duplicatesReversed, 'Count', result.reversed);
  metrics.publishStoredMetrics();
  logger.info(summaryLine(result), { customers: result.customers, historyPages: result.historyPages });
}
