import { Duration, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { grantRunRecord } from './activity-access.js';
import { ENV } from '../../shared/config/index.js';
import { METRIC } from '../../shared/metrics/index.js';
import type { ReconcileSources } from '../../shared/reconcile/index.js';
import { adminTokenSecretName, type ReconcileSourceConfig } from '../config/reconcile.js';
import type { StageConfig } from '../config/schema.js';
import { functionEnvironment } from '../config/derived.js';
import { sourcesConfig } from '../config/sources.js';
import { BundledFunction, type FunctionLogs } from './bundled-function.js';
import { grantLedgerKeys } from './ledger-table.js';
import { FUNCTION_LEDGER_KEYS } from '../../shared/ledger/index.js';

export type ScheduledReconcileProps = FunctionLogs & {
  config: StageConfig;
  table: ITable;
  queue: IQueue;
};

/**
 * A scheduled reconcile function (Shopify's, Smaregi's): 256 MiB, 5 minutes (a run reads hours of orders
 * and the sender's throttle may make it wait), the ledger, queue and sources in its environment; it may
 * read ledger items and send to the queue, writing stays with process-events. Its secrets are the caller's.
 */
export function reconcileFunction(
  scope: Construct,
  id: string,
  props: ScheduledReconcileProps,
  o: { code: 'reconcileShopify' | 'reconcileSmaregi'; description: string; environment: Record<string, string> },
): BundledFunction {
  const fn = new BundledFunction(scope, id, {
    code: o.code,
    description: o.description,
    memoryMiB: 256,
    timeoutSeconds: 300,
    logRetention: props.logRetention,
    ...(props.logsKey ? { logsKey: props.logsKey } : {}),
    removalPolicy: props.removalPolicy,
    environment: functionEnvironment(props.config, {
      [ENV.LEDGER_TABLE]: props.table.tableName,
      [ENV.QUEUE_URL]: props.queue.queueUrl,
      [ENV.SOURCES_CONFIG]: JSON.stringify(sourcesConfig(props.config.sources)),
      [ENV.ACTIVITY_TABLE]: props.table.tableName,
      ...o.environment,
    }),
  });
  // Reads only: whether the ledger has seen an event. Writing stays with process-events.
  // The table itself by its exact ARN: table.grant would add `index/*` now that the ledger has an index.
  // Order and refund records only (dynamodb:LeadingKeys).
  grantLedgerKeys(props.table, fn.role, ['dynamodb:GetItem'], FUNCTION_LEDGER_KEYS.reconcile);
  // And its run summaries, in the activity record's one runs item (the operator console's runs panel).
  grantRunRecord(props.table, fn.role);
  props.queue.grant(fn.role, 'sqs:SendMessage');
  return fn;
}

/**
 * Reconciliation with Shopify on a schedule: one function, one EventBridge rule per reconciled
 * source (every `everyMinutes`, input {"source": name}), one Admin API token secret per source
 * (created holding an empty token; the operator puts the real one in). The function may read ledger
 * items, send to the queue and read its token secrets; nothing else.
 */
export class ScheduledReconcile extends Construct {
  readonly function: BundledFunction;
  readonly tokenSecrets: Record<string, Secret>;
  readonly rules: Record<string, Rule>;
  private readonly config: StageConfig;

  constructor(scope: Construct, id: string, props: ScheduledReconcileProps) {
    super(scope, id);
    const { config } = props;
    this.config = config;
    const reconciled = Object.entries(config.reconcile);

    this.tokenSecrets = Object.fromEntries(
      reconciled.map(([source]) => {
        const secret = new Secret(this, `AdminToken-${source}`, {
          secretName: adminTokenSecretName(config, source),
          description: `Shopify Admin API access token of ${source} (read_orders): {"access_token": "shpat_..."}`,
          secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ access_token: '' })),
          removalPolicy: props.removalPolicy,
        });
        Validations.of(secret).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason: 'Shopify issues the Admin API access token when the app is installed; a rotation Lambda cannot reissue it there.',
        });
        return [source, secret];
      }),
    );

    const reconcileSources: ReconcileSources = Object.fromEntries(
      reconciled.map(([source, s]) => [
        source,
        {
          shopDomain: s.shopDomain,
          accessTokenSecretArn: tokenSecretOf(this.tokenSecrets, source).secretArn,
          lookbackHours: s.lookbackHours,
          settleMinutes: s.settleMinutes,
        },
      ]),
    );
    this.function = reconcileFunction(this, 'ReconcileShopify', props, {
      code: 'reconcileShopify',
      description: 'Queues Shopify orders and refunds whose webhooks never came (scheduled reconciliation)',
      environment: { [ENV.RECONCILE_SOURCES]: Stack.of(this).toJsonString(reconcileSources) },
    });
    for (const secret of Object.values(this.tokenSecrets)) secret.grantRead(this.function.role);

    this.rules = Object.fromEntries(
      reconciled.map(([source, s]) => [
        source,
        new Rule(this, `Schedule-${source}`, {
          description: `Reconcile ${source} with Shopify every ${s.everyMinutes} minutes over the last ${s.lookbackHours} hours`,
          schedule: Schedule.rate(Duration.minutes(s.everyMinutes)),
          targets: [
            new LambdaFunction(this.function.fn, {
              event: RuleTargetInput.fromObject({ source }),
              // The next run covers the same window again: a failed run needs no long retry.
              retryAttempts: 2,
              maxEventAge: Duration.minutes(Math.min(s.everyMinutes, 60)),
            }),
          ],
        }),
      ]),
    );
  }

  /** Alarms, one per source, when runs in a row kept finding events Shopify did not deliver. */
  addMissingAlarms(topic: ITopic): Alarm[] {
    const action = new SnsAction(topic);
    return Object.entries(this.config.reconcile).map(([source, s]: [string, ReconcileSourceConfig]) => {
      const alarmId = `ReconcileMissing-${source}`;
      const alarm = new Alarm(this, alarmId, {
        alarmName: `loyalty-bridge-${this.config.stageName}-${alarmId}`,
        alarmDescription:
          `Reconciliation of ${source} found events whose webhooks never came in ${s.alarmAfterRuns} runs in a row: ` +
          'they were queued and credited, but check the webhook subscription in Shopify (it may have been removed) and the intake.',
        metric: new Metric({
          namespace: this.config.observability.metricsNamespace,
          metricName: METRIC.reconcileMissing,
          dimensionsMap: { service: this.config.observability.serviceName, source },
          statistic: 'Maximum',
          period: Duration.minutes(s.everyMinutes),
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: s.alarmAfterRuns,
        datapointsToAlarm: s.alarmAfterRuns,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return alarm;
    });
  }
}

/** Each reconciled source got its token secret above: one missing is a bug here, said by name. */
function tokenSecretOf(secrets: Record<string, Secret>, source: string): Secret {
  const secret = secrets[source];
  if (!secret) throw new Error(`no Admin API token secret was made for source ${source}`);
  return secret;
}
