import { CSV_HEADER, POINT_COLUMNS } from './columns.js';
import type { PointsReport } from './report.js';

/** A field as RFC 4180 writes it: quoted only when it holds a comma, a quote or a line break. */
const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** The report's CSV: the header, then one line per row (CRLF-free, ending in a newline). */
export function pointsReportCsv(report: PointsReport): string {
  const lines = report.rows.map((r) =>
    [r.day, r.source, r.store, ...POINT_COLUMNS.map((c) => String(r[c])), String(r.net), r.net_yen].map(field).join(','),
  );
  return `${[CSV_HEADER, ...lines].join('\n')}\n`;
}

/** The last line every run says: what was reported and whether it reconciled. */
export function pointsReportSummary(report: PointsReport): string {
  return `points-report: month=${report.month} rows=${report.rows.length} net=${report.totals.net} reconciled=${report.reconciled ? 'yes' : 'no'}`;
}

/** The month's totals, one line (before the summary). */
export function pointsReportTotals(report: PointsReport): string {
  const columns = POINT_COLUMNS.map((c) => `${c}=${report.totals[c]}`).join(' ');
  return `points-report: totals ${columns} net=${report.totals.net} net_yen=${report.totals.net_yen} value_per_point=${report.valuePerPoint}`;
}
