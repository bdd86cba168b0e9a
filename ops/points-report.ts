import { parseArgs } from 'node:util';
import { resolveLocalConfig } from '../kit/local-stack/config.js';
import { connectToRunningStack, configFollowingStack, findRunningStack } from '../kit/local-stack/connect.js';
import {
  AccountingError,
  buildPointsReport,
  parseMonth,
  pointsReportCsv,
  pointsReportSummary,
  pointsReportTotals,
  reportSettings,
} from '../shared/accounting/index.js';
import { scanPointsRecords } from '../shared/ledger/index.js';
import { loadSourceSettings } from '../shared/sources/index.js';
import { OpsError } from './errors.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import type { PointsReportTarget } from './points-report-target.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';

export const POINTS_REPORT_USAGE = `usage:
  npm run points-report -- --month YYYY-MM [--format csv|json] [--stage S [--stack NAME] [--outputs FILE]]`;

/** The `npm start` on PORT: its ledger in dynalite and its sources as it runs them. */
async function localTarget(env: NodeJS.ProcessEnv): Promise<PointsReportTarget> {
  const config = await resolveLocalConfig(env);
  const found = await findRunningStack(config);
  if (found.status !== 'up') throw new OpsError('usage', `no local stack answers at ${found.intakeUrl}: start it with npm start`);
  const handle = await connectToRunningStack(await configFollowingStack(config, found.info, env), found.info);
  return {
    client: handle.documentClient,
    tableName: handle.tableName,
    sources: handle.sources ?? loadSourceSettings(undefined),
    close: () => handle.close(),
  };
}

async function run(argv: string[], env: NodeJS.ProcessEnv, out: CommandOutput): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      month: { type: 'string' },
      format: { type: 'string', default: 'csv' },
      help: { type: 'boolean', default: false },
      ...AWS_TARGET_OPTIONS,
    },
  });
  if (values.help) {
    out.print(POINTS_REPORT_USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new OpsError('usage', `unexpected ${positionals.join(' ')}`);
  if (values.month === undefined) throw new OpsError('usage', '--month is required');
  const month = parseMonth(values.month);
  if (values.format !== 'csv' && values.format !== 'json') throw new OpsError('usage', `--format is csv or json, got ${values.format}`);
  const stage = stageOf(values);
  const target =
    stage === undefined ? await localTarget(env) : await (await import('./points-report-aws.js')).stagePointsReportTarget(stage);
  try {
    const settings = reportSettings(target.sources);
    const report = await buildPointsReport({
      month,
      valuePerPoint: settings.valuePerPoint,
      storeOf: settings.storeOf,
      pages: scanPointsRecords(target.client, target.tableName),
    });
    if (!report.reconciled) {
      // Nothing for the books until the ledger agrees with itself: what differs, then the summary.
      for (const d of report.differences) out.printError(`points-report: differs: ${d}`);
      out.printError(pointsReportSummary(report));
      return 1;
    }
    if (values.format === 'json') out.print(JSON.stringify({ ...report, valueFrom: settings.valueFrom }, null, 2));
    else out.print(pointsReportCsv(report).trimEnd());
    out.printError(pointsReportTotals(report));
    out.printError(pointsReportSummary(report));
    return 0;
  } finally {
    await target.close();
  }
}

/**
 * `npm run points-report -- --month YYYY-MM [--format csv|json] [--stage S]`: the month's points ledger for
 * the accountants (docs/accounting.md) on stdout; on stderr its totals and, last, `points-report: month=M
 * rows=N net=X reconciled=yes`. Exit 0 reconciled, 1 not (each difference on stderr, no rows), 2 could not run.
 */
export async function pointsReportCommand(argv: string[], env: NodeJS.ProcessEnv, given: CommandOutput = consoleOutput): Promise<number> {
  const failures = { usage: POINTS_REPORT_USAGE, name: 'points-report', plain: (e: unknown) => e instanceof AccountingError };
  return runCommand(failures, given, (out) => run(argv, env, out));
}
