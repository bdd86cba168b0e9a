import type { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { type ActivityRecorder, activityFromEnv, activityOf, recordedRun } from '../shared/activity/index.js';
export { auditDaysFromEnv, DEFAULT_AUDIT_DAYS } from '../shared/audit/index.js';
import {
  auditDaysFromEnv,
  auditLedger,
  findingLine,
  reportAuditRun,
  scanLedger,
  summaryLine,
  type AuditResult,
  type AuditSummary,
  auditSummary,
  type LedgerRecords,
  type ReversalDeps,
  reversalDepsOf,
  type TimeRange,
} from '../shared/audit/index.js';
import { ENV, processingSettingsFromEnv, requiredSetting } from '../shared/config/index.js';
import { documentClientFromEnv } from '../shared/dynamodb/index.js';
import { createLedger, type Ledger } from '../shared/ledger/index.js';
import type * as logging from '../shared/logging/index.js';
import { loggerFromEnv } from '../shared/logging/index.js';
import { metricsFromEnv } from '../shared/metrics/index.js';
import { credentialsFromEnv, type OpenApiClient } from '../shared/openapi/index.js';
import { auditTillMirrorFromEnv, settleTillMirrorsReported, type TillMirrorDeps } from '../shared/sources/smaregi/index.js';
import { DAY_MS } from '../shared/time/index.js';
import { openApiClientFromEnv } from '../shared/upstream/index.js';

/**
 * audit-ledger: on an EventBridge schedule, `npm run audit` over the ledger records of the last AUDIT_DAYS
 * days. Every finding is logged; the drift count is the metric AuditDrift (Powertools EMF), alarmed. A run
 * that cannot finish fails (the Errors alarm): it never publishes a drift of 0 it did not prove.
 */

export type AuditLedgerLogger = Pick<logging.Logger, 'info' | 'warn'>;

export interface AuditLedgerDeps {
  scan: (range: TimeRange) => Promise<LedgerRecords>;
  ledger: Pick<Ledger, 'getOrder' | 'getRefund' | 'getBonus' | 'correctBookedDebit' | 'correctRefundDebit' | 'settleRefundShortfall'>;
  /** Histories read; reversals sent (through the protocol engine) and the balance read for the clamp. */
  openapi: Pick<OpenApiClient, 'listPoints' | 'grantPoints' | 'calculatePoints' | 'getMember'>;
  /** Reverses each extra entry of a duplicated marker (its own ledger records, the engine, the stage's policy). */
  reversal: ReversalDeps;
  days: number;
  clock: () => number;
  logger: AuditLedgerLogger;
  /** Powertools Metrics in Lambda (namespace and service from POWERTOOLS_METRICS_NAMESPACE / POWERTOOLS_SERVICE_NAME). */
  metrics: {
    addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): void;
    publishStoredMetrics(): void;
  };
  /** Where the run's summary is filed for the operator console (best effort). */
  activity?: ActivityRecorder;
  /** Under a Smaregi source's `tillPoints: membership`: the till mirror, whose unfinished steps each run finishes. */
  tillMirror?: TillMirrorDeps | undefined;
}

export function makeHandler(deps: AuditLedgerDeps): (event?: unknown, context?: Context) => Promise<AuditSummary> {
  return async () => {
    const now = deps.clock();
    // No upper bound: what was written while the audit ran is checked too.
    const range = { from: now - deps.days * DAY_MS };
    const result: AuditResult = await recordedRun(
      deps.activity,
      'audit',
      deps.clock,
      async () => auditLedger(await deps.scan(range), { ledger: deps.ledger, openapi: deps.openapi, reversal: deps.reversal }),
      (r) => ({ summary: summaryLine(r), findings: r.findings.length, details: r.findings.map(findingLine) }),
    );
    reportAuditRun(result, deps);
    if (deps.tillMirror) await settleTillMirrorsReported(deps.tillMirror, deps.logger);
    return auditSummary(result, range.from);
  };
}

/** What a caller may replace: any dependency, and the ledger table's document client (a test's, guarded as IAM would). */
export type AuditLedgerOverrides = Partial<AuditLedgerDeps> & { documentClient?: ReturnType<typeof documentClientFromEnv> };

export function depsFromEnv(env: NodeJS.ProcessEnv, overrides: AuditLedgerOverrides = {}): AuditLedgerDeps {
  const tableName = requiredSetting(env, ENV.LEDGER_TABLE, 'the ledger table name is required');
  const client = overrides.documentClient ?? documentClientFromEnv(env);
  const clock = overrides.clock ?? Date.now;
  const logger = loggerFromEnv(env, 'audit-ledger');
  const processing = processingSettingsFromEnv(env);
  // The deployment's one budget: the audit draws from it beside the workers.
  const openapi = overrides.openapi ?? openApiClientFromEnv(env, credentialsFromEnv(env), { client });
  const tillMirror = 'tillMirror' in overrides ? overrides.tillMirror : auditTillMirrorFromEnv(env, { openapi, logger }, clock);
  return {
    scan: overrides.scan ?? ((range) => scanLedger(client, tableName, range, undefined, { redemptionMembers: true })),
    ledger: overrides.ledger ?? createLedger({ client, tableName, clock }),
    openapi,
    // Never mirrored to the till: the till got the duplicated change once (reverseExtra says why).
    reversal: overrides.reversal ?? reversalDepsOf({ client, tableName, clock, openapi, processing }),
    days: overrides.days ?? auditDaysFromEnv(env),
    clock,
    logger: overrides.logger ?? { info: (m, e = {}) => logger.info(m, e), warn: (m, e = {}) => logger.warn(m, e) },
    metrics: overrides.metrics ?? metricsFromEnv(env, 'audit-ledger'),
    ...activityOf(overrides.activity ?? activityFromEnv(env, logger)),
    ...(tillMirror ? { tillMirror } : {}),
  };
}

let lambdaHandler: ReturnType<typeof makeHandler> | undefined;

/** The Lambda entry point: dependencies are built from process.env on the first invocation, then kept. */
export const handler = async (event: unknown, context?: Context): Promise<AuditSummary> => {
  lambdaHandler ??= makeHandler(depsFromEnv(process.env));
  return lambdaHandler(event, context);
};
