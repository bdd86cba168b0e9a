/**
 * The points ledger for accounting (ASBJ Statement No. 29, docs/accounting.md): a month's points by JST
 * day, source and store, with their yen value, reconciled with the ledger a second way; the CSV `npm run
 * points-report` prints and the monthly export writes.
 */
export { CSV_HEADER, POINT_COLUMNS, type ColumnTotals, type PointColumn } from './columns.js';
export { pointsReportCsv, pointsReportSummary, pointsReportTotals } from './csv.js';
export { AccountingError, ReportNotReconciledError, ReportRequestError } from './errors.js';
export { exportPointsReport, type PointsExportDeps, type PointsExportResult, pointsReportKey } from './export.js';
export { jstDay, parseMonth, previousJstMonth } from './jst.js';
export { buildPointsReport, type PointsReport, type PointsReportInput, type PointsRow } from './report.js';
export { NO_STORE, type ReportSettings, reportSettings, WEB_STORE } from './settings.js';
export { pointsInYen } from './yen.js';
