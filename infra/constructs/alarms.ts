import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, upstreamCallsMetric } from '../../shared/metrics/index.js';
import { POINTS_API_OPERATIONS } from '../../shared/points/index.js';
import type { SenderOps } from '../../shared/sources/ops.entry.js';

/**
 * Powertools metrics process-events emits (namespace POWERTOOLS_METRICS_NAMESPACE, only the default
 * `service` dimension = POWERTOOLS_SERVICE_NAME): one `UpstreamLatency` sample (Milliseconds) per Open
 * API call, so its SampleCount counts the calls, and one `UpstreamErrors` (Count) per failed call.
 */
export const UPSTREAM_METRICS = { callLatency: METRIC.upstreamLatency, errors: METRIC.upstreamErrors } as const;

export type OperationsAlarmsProps = {
  stageName: string;
  email?: string;
  topicArn?: string;
  queue: IQueue;
  deadLetterQueue: IQueue;
  functions: { name: string; fn: IFunction }[];
  metricsNamespace: string;
  serviceName: string;
  oldestMessageAgeSeconds: number;
  upstreamFailurePercent: number;
  /** The deployment's Open API budget per endpoint per minute (rate.upstreamPerMinute): alarmed at 90 %. */
  upstreamBudgetPerMinute: number;
  /** Alarm when a worker container's circuit breaker has been open this long (seconds); omitted: no alarm. */
  breakerOpenSeconds?: number;
};

/**
 * Each sender's own alarms, as its registration declares them (shared/sources/<kind>/ops.ts: Smaregi's
 * SmaregiApiErrors), on the worker's metrics: for the senders of a stage's configured sources only.
 */
export function addSenderAlarms(
  alarms: Pick<OperationsAlarms, 'addAlarm'>,
  metrics: { metricsNamespace: string; serviceName: string },
  senders: readonly SenderOps[],
): void {
  for (const alarm of senders.flatMap((s) => s.alarms)) {
    const metric = new Metric({
      namespace: metrics.metricsNamespace,
      metricName: alarm.metric,
      dimensionsMap: { service: metrics.serviceName },
      statistic: 'Sum',
      period: Duration.minutes(alarm.periodMinutes),
    });
    alarms.addAlarm(alarm.id, metric, alarm.threshold, alarm.description, { ...alarm.evaluation });
  }
}

/**
 * The endpoints whose calls the budget alarm and the dashboard's rate figure watch: every one the worker
 * and the App Proxy call under load (a metric-math alarm takes at most 10 metrics).
 */
export const UPSTREAM_BUDGET_OPERATIONS = [...POINTS_API_OPERATIONS, 'checkHandoverToken', 'updateMember', 'registerMember'] as const;

/** The budget alarm fires at 90 % of the budget in a minute on any one endpoint. */
export const upstreamBudgetAlarmThreshold = (budgetPerMinute: number): number => Math.floor(budgetPerMinute * 0.9);

/** The alarms an operator needs, all sent to one SNS topic (created encrypted, or an existing one). */
export class OperationsAlarms extends Construct {
  readonly topic: ITopic;
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;
  private readonly alarmNamePrefix: string;

  constructor(scope: Construct, id: string, props: OperationsAlarmsProps) {
    super(scope, id);
    const alarmNamePrefix = `loyalty-bridge-${props.stageName}-`;
    this.topic = props.topicArn ? Topic.fromTopicArn(this, 'Topic', props.topicArn) : this.createTopic(props.email, alarmNamePrefix);
    this.action = new SnsAction(this.topic);
    this.alarmNamePrefix = alarmNamePrefix;
    const add = this.addAlarm.bind(this);

    add(
      'DeadLetterQueueDepth',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      1,
      'Events gave up after repeated failures and wait in the DLQ: read the ledger record for the reason, fix, redrive.',
    );
    add(
      'OldestMessageAge',
      props.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
      props.oldestMessageAgeSeconds,
      'Events wait in the queue longer than expected: the worker is failing, throttled or slowed by the rate budget.',
      { periods: 5, datapoints: 5 },
    );
    for (const { name, fn } of props.functions) {
      add(
        `${name}Errors`,
        fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        1,
        `${name} invocations failed as a whole (crash, timeout, out of memory).`,
      );
    }
    const upstream = (metricName: string, statistic: 'SampleCount' | 'Sum') =>
      new Metric({
        namespace: props.metricsNamespace,
        metricName,
        dimensionsMap: { service: props.serviceName },
        statistic,
        period: Duration.minutes(5),
      });
    add(
      'UpstreamFailureRate',
      new MathExpression({
        expression: 'IF(calls > 0, 100 * failures / calls, 0)',
        usingMetrics: {
          calls: upstream(UPSTREAM_METRICS.callLatency, 'SampleCount'),
          failures: upstream(UPSTREAM_METRICS.errors, 'Sum'),
        },
        period: Duration.minutes(5),
        label: 'Open API failure rate (%)',
      }),
      props.upstreamFailurePercent,
      'The membership Open API fails too often (network, timeouts, 5xx, credentials): events are being retried.',
      { periods: 3, datapoints: 2 },
    );
    // Every function counts its requests per endpoint as it sends them (UpstreamCalls_<endpoint>); the
    // busiest endpoint's minute against the one budget.
    const calls = Object.fromEntries(
      UPSTREAM_BUDGET_OPERATIONS.map((op, i) => [
        `c${i}`,
        new Metric({
          namespace: props.metricsNamespace,
          metricName: upstreamCallsMetric(op),
          dimensionsMap: { service: props.serviceName },
          statistic: 'Sum',
          period: Duration.minutes(1),
        }),
      ]),
    );
    add(
      'UpstreamBudgetNearlySpent',
      new MathExpression({
        expression: `MAX([${Object.keys(calls).join(', ')}])`,
        usingMetrics: calls,
        period: Duration.minutes(1),
        label: 'Open API calls in a minute, busiest endpoint',
      }),
      upstreamBudgetAlarmThreshold(props.upstreamBudgetPerMinute),
      'The Open API calls of one endpoint reached 90 % of the deployment budget (rate.upstreamPerMinute) in a minute: ' +
        'the queue drains at the budget, not faster (docs/runbook.md, UpstreamBudgetNearlySpent).',
      { periods: 3, datapoints: 2 },
    );
    if (props.breakerOpenSeconds !== undefined) {
      // process-events publishes, per invocation, how long its breaker has been open (0 when closed).
      add(
        'CircuitBreakerOpenLong',
        new Metric({
          namespace: props.metricsNamespace,
          metricName: METRIC.circuitBreakerOpen,
          dimensionsMap: { service: props.serviceName },
          statistic: 'Maximum',
          period: Duration.minutes(1),
        }),
        props.breakerOpenSeconds,
        'The membership Open API has been unreachable or failing for long: the worker circuit breaker is open and events are waiting (deferred, not dead-lettered).',
      );
    }
  }

  /** One more alarm on `metric` >= `threshold`, named for the stage and notifying the topic (ALARM and OK). */
  addAlarm(alarmId: string, metric: IMetric, threshold: number, description: string, evaluation = { periods: 1, datapoints: 1 }): Alarm {
    const alarm = new Alarm(this, alarmId, {
      alarmName: `${this.alarmNamePrefix}${alarmId}`,
      alarmDescription: description,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: evaluation.periods,
      datapointsToAlarm: evaluation.datapoints,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  private createTopic(email: string | undefined, alarmNamePrefix: string): Topic {
    // Encrypted with our own key: the AWS managed SNS key does not let CloudWatch publish.
    const key = new Key(this, 'TopicKey', {
      description: 'Encrypts the loyalty bridge alarm topic',
      enableKeyRotation: true,
      // Holds no data worth keeping: alarm messages are transient.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const stack = Stack.of(this);
    // CloudWatch may use the key only on behalf of this account (no confused deputy).
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchOfThisAccount',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    );
    const topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    // The TLS-only topic policy replaces SNS's default one, which is what let same-account alarms
    // publish: without this statement every alarm action fails ("no resource-based policy allows").
    // Only this stage's alarms, in this account (no confused deputy).
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisStagesAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${alarmNamePrefix}*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (email) topic.addSubscription(new EmailSubscription(email));
    return topic;
  }
}
