import { pointsReportCsv, pointsReportSummary } from './csv.js';
import { ReportNotReconciledError } from './errors.js';
import { previousJstMonth } from './jst.js';
import { buildPointsReport, type PointsReport } from './report.js';
import type { ReportSettings } from './settings.js';

/** Where a month's CSV is kept in the report bucket. */
export const pointsReportKey = (month: string) => `points-report/${month}.csv`;

export interface PointsExportDeps {
  settings: ReportSettings;
  /** The ledger's points records, page by page, from the start each time it is called. */
  pages: () => AsyncIterable<readonly Record<string, unknown>[]>;
  /** Writes the object (the stack's bucket, its own KMS key). */
  put: (key: string, body: string, contentType: string) => Promise<void>;
  clock: () => number;
}

export interface PointsExportResult {
  month: string;
  key: string;
  rows: number;
  net: number;
  summary: string;
}

/**
 * The monthly export: the previous JST month's report (or `month`), written as the same CSV as `npm run
 * points-report` prints. A month that does not reconcile is not written: the run fails with what differs.
 */
export async function exportPointsReport(deps: PointsExportDeps, month?: string): Promise<PointsExportResult> {
  const target = month ?? previousJstMonth(deps.clock());
  const report: PointsReport = await buildPointsReport({
    month: target,
    valuePerPoint: deps.settings.valuePerPoint,
    storeOf: deps.settings.storeOf,
    pages: deps.pages(),
  });
  if (!report.reconciled) throw new ReportNotReconciledError(target, report.differences);
  const key = pointsReportKey(target);
  await deps.put(key, pointsReportCsv(report), 'text/csv; charset=utf-8');
  return { month: target, key, rows: report.rows.length, net: report.totals.net, summary: pointsReportSummary(report) };
}
