import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { FUNCTION_LEDGER_KEYS } from '../../shared/ledger/index.js';
import { METRIC } from '../../shared/metrics/index.js';
import type { OperationsAlarms } from './alarms.js';
import { grantRunRecord } from './activity-access.js';
import { grantLedgerKeys, grantUpstreamBudget } from './ledger-table.js';
import { BundledFunction, type FunctionLogs } from './bundled-function.js';

export type ScheduledAuditProps = FunctionLogs & {
  table: ITable;
  openApiSecret: ISecret;
  environment: Record<string, string>;
  hourUtc: number;
  memoryMiB: number;
  timeoutSeconds: number;
  alarms: OperationsAlarms;
  metricsNamespace: string;
  serviceName: string;
};

/**
 * The daily audit (functions/audit-ledger.ts, the code of `npm run audit`): an EventBridge schedule
 * runs it; it may read the ledger (Scan, GetItem) and the Open API secret, write its reversal records
 * (`reversal#` keys only), draw from the upstream budget (its `budget#` counters) and file its run summary
 * (shared/activity), nothing else (under a Smaregi source's `tillPoints: membership` the stack adds the
 * Smaregi access and `till-mirror#` keys: IntegrationStack.mirrorTillPoints); its AuditDrift and DuplicatesReversed metrics and its failures each have
 * an alarm on the stage's topic.
 */
export class ScheduledAudit extends Construct {
  readonly function: BundledFunction;

  constructor(scope: Construct, id: string, props: ScheduledAuditProps) {
    super(scope, id);
    this.function = new BundledFunction(this, 'AuditLedger', {
      code: 'auditLedger',
      description: 'Audits the ledger against the point histories every day and publishes the drift',
      memoryMiB: props.memoryMiB,
      timeoutSeconds: props.timeoutSeconds,
      logRetention: props.logRetention,
      ...(props.logsKey ? { logsKey: props.logsKey } : {}),
      removalPolicy: props.removalPolicy,
      environment: props.environment,
    });
    // Reads: the whole table itself (not its index), as it audits every record: a Scan cannot be narrowed
    // by LeadingKeys, and its GetItem reads what the scan found. The grant* helpers would add writes or index ARNs.
    this.function.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['dynamodb:Scan', 'dynamodb:GetItem'], resources: [props.table.tableArn] }),
    );
    // Writes apart: its reversal records only (shared/ledger FUNCTION_LEDGER_KEYS.auditWrites, dynamodb:LeadingKeys).
    grantLedgerKeys(props.table, this.function.role, ['dynamodb:PutItem', 'dynamodb:UpdateItem'], FUNCTION_LEDGER_KEYS.auditWrites);
    props.openApiSecret.grantRead(this.function.role);
    grantRunRecord(props.table, this.function.role);
    // Its history reads draw from the deployment's one Open API budget (its counters, `budget#` keys only).
    grantUpstreamBudget(props.table, this.function.role);

    new Rule(this, 'Daily', {
      description: 'Runs the ledger audit once a day',
      schedule: Schedule.cron({ minute: '0', hour: String(props.hourUtc) }),
      targets: [new LambdaFunction(this.function.fn, { retryAttempts: 2, maxEventAge: Duration.hours(2) })],
    });

    const driftMetric = new Metric({
      namespace: props.metricsNamespace,
      metricName: METRIC.auditDrift,
      dimensionsMap: { service: props.serviceName },
      statistic: 'Maximum',
      // One datapoint a day: a day-long period keeps the alarm in ALARM until the next audit says otherwise.
      period: Duration.days(1),
    });
    props.alarms.addAlarm(
      'AuditDrift',
      driftMetric,
      1,
      'The daily audit found points in the membership service that the ledger does not account for (or the reverse): run npm run audit -- --stage <stage> for the list.',
    );
    props.alarms.addAlarm(
      'DuplicatesReversed',
      new Metric({
        namespace: props.metricsNamespace,
        metricName: METRIC.duplicatesReversed,
        dimensionsMap: { service: props.serviceName },
        statistic: 'Sum',
        period: Duration.days(1),
      }),
      1,
      'The daily audit found a points operation applied twice (a request the membership service applied after every horizon) and reversed the extra entry: see the runbook, DuplicatesReversed.',
    );
    props.alarms.addAlarm(
      'AuditLedgerErrors',
      this.function.fn.metricErrors({ period: Duration.days(1), statistic: 'Sum' }),
      1,
      'The daily audit could not finish (Open API or DynamoDB failing, or timeout): its drift count was not published.',
    );
  }
}
