import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  exportPointsReport,
  parseMonth,
  type PointsExportDeps,
  type PointsExportResult,
  reportSettings,
} from '../shared/accounting/index.js';
import { ENV, requiredSetting } from '../shared/config/index.js';
import { documentClientFromEnv } from '../shared/dynamodb/index.js';
import { scanPointsRecords } from '../shared/ledger/index.js';
import type * as logging from '../shared/logging/index.js';
import { loggerFromEnv } from '../shared/logging/index.js';
import { loadSourceSettings } from '../shared/sources/index.js';

/**
 * export-points-report: on an EventBridge schedule (the 1st of each month, JST), the previous JST
 * month's points report (shared/accounting, the CSV of `npm run points-report`) written to the stack's
 * report bucket as `points-report/YYYY-MM.csv`. Input `{"month": "YYYY-MM"}` exports that month instead.
 * A month that does not reconcile is not written: the run fails (its Errors alarm) with what differs.
 */

export interface ExportInput {
  month?: string;
}

export type ExportDeps = PointsExportDeps & { logger: Pick<logging.Logger, 'info'> };

export function makeHandler(deps: ExportDeps): (input?: ExportInput) => Promise<PointsExportResult> {
  return async (input) => {
    const month = typeof input?.month === 'string' ? parseMonth(input.month) : undefined;
    const result = await exportPointsReport(deps, month);
    deps.logger.info(result.summary, { month: result.month, key: result.key, rows: result.rows, net: result.net });
    return result;
  };
}

export function depsFromEnv(env: NodeJS.ProcessEnv): ExportDeps {
  const tableName = requiredSetting(env, ENV.LEDGER_TABLE, 'the ledger table name is required');
  const bucket = requiredSetting(env, ENV.POINTS_REPORT_BUCKET, 'the points report bucket is required');
  const client = documentClientFromEnv(env);
  const s3 = new S3Client({});
  const logger = loggerFromEnv(env, 'export-points-report');
  return {
    settings: reportSettings(loadSourceSettings(env[ENV.SOURCES_CONFIG])),
    pages: () => scanPointsRecords(client, tableName),
    // The bucket's default encryption (its own KMS key) applies: nothing to say per object.
    put: async (key, body, contentType) => {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
    },
    clock: Date.now,
    logger: { info: (m, e = {}) => logger.info(m, e) },
  };
}

let lambdaHandler: ((input?: ExportInput) => Promise<PointsExportResult>) | undefined;

export const handler = async (input?: ExportInput): Promise<PointsExportResult> => {
  lambdaHandler ??= makeHandler(depsFromEnv(process.env));
  return lambdaHandler(input);
};
