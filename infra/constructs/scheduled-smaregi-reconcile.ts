import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC } from '../../shared/metrics/index.js';
import { SMAREGI_ENV } from '../../shared/sources/smaregi/index.js';
import type { StageConfig } from '../config/schema.js';
import type { BundledFunction, FunctionLogs } from './bundled-function.js';
import { reconcileFunction } from './scheduled-reconcile.js';
import { type SmaregiAccessSecrets, smaregiSources } from './smaregi-access.js';

/**
 * Smaregi's missed webhooks, on a schedule: one function, one EventBridge rule per Smaregi source
 * (every `reconcile.everyMinutes`, input {"source": name}). The function may read ledger items, send to
 * the queue and read the Smaregi app secrets; nothing else.
 */
export class ScheduledSmaregiReconcile extends Construct {
  readonly function: BundledFunction;
  readonly rules: Record<string, Rule>;

  constructor(
    scope: Construct,
    id: string,
    props: FunctionLogs & { config: StageConfig; table: ITable; queue: IQueue; access: SmaregiAccessSecrets; accessJson: string },
  ) {
    super(scope, id);
    const { config } = props;
    this.function = reconcileFunction(this, 'ReconcileSmaregi', props, {
      code: 'reconcileSmaregi',
      description: 'Queues Smaregi transactions whose webhooks never came (scheduled reconciliation)',
      environment: { [SMAREGI_ENV]: props.accessJson },
    });
    props.access.grantRead(this.function.role);
    this.rules = Object.fromEntries(
      smaregiSources(config).map(({ name, reconcile }) => [
        name,
        new Rule(this, `Schedule-${name}`, {
          description: `Reconcile ${name} with Smaregi every ${reconcile.everyMinutes} minutes over the last ${reconcile.lookbackHours} hours`,
          schedule: Schedule.rate(Duration.minutes(reconcile.everyMinutes)),
          targets: [
            new LambdaFunction(this.function.fn, {
              event: RuleTargetInput.fromObject({ source: name }),
              retryAttempts: 2,
              maxEventAge: Duration.minutes(Math.min(reconcile.everyMinutes, 60)),
            }),
          ],
        }),
      ]),
    );
  }
}

/**
 * SmaregiApiErrors: the worker's Smaregi reads failing (Smaregi down or throttling us, the app's access
 * revoked) in two of three 5-minute periods. Transactions wait (retried), nothing is lost; a stage with
 * no Smaregi source has no such alarm.
 */
export function addSmaregiApiErrorsAlarm(
  alarms: {
    addAlarm(
      id: string,
      metric: Metric,
      threshold: number,
      description: string,
      evaluation?: { periods: number; datapoints: number },
    ): unknown;
  },
  metrics: { metricsNamespace: string; serviceName: string },
): void {
  alarms.addAlarm(
    'SmaregiApiErrors',
    new Metric({
      namespace: metrics.metricsNamespace,
      metricName: METRIC.smaregiApiErrors,
      dimensionsMap: { service: metrics.serviceName },
      statistic: 'Sum',
      period: Duration.minutes(5),
    }),
    5,
    "The worker's reads of Smaregi transactions fail (Smaregi down or throttling, or the app's credentials or scopes refused): Smaregi sales wait.",
    { periods: 3, datapoints: 2 },
  );
}
