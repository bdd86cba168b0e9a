import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Construct } from 'constructs';
import { METRIC, outcomeMetric } from '../../shared/metrics/names.js';
import type { OperationsAlarms } from './alarms.js';

type StageMetrics = { stageName: string; metricsNamespace: string; serviceName: string };

/** An alarm on the first occurrence of a counted event (any datapoint >= 1 in 5 minutes), on the stage's topic. */
function addFirstOccurrenceAlarm(
  scope: Construct,
  alarms: OperationsAlarms,
  props: StageMetrics & { alarmId: string; metricName: string; description: string },
): Alarm {
  const alarm = new Alarm(scope, props.alarmId, {
    alarmName: `loyalty-bridge-${props.stageName}-${props.alarmId}`,
    alarmDescription: props.description,
    metric: new Metric({
      namespace: props.metricsNamespace,
      metricName: props.metricName,
      dimensionsMap: { service: props.serviceName },
      statistic: 'Sum',
      period: Duration.minutes(5),
    }),
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const action = new SnsAction(alarms.topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  alarms.alarms.push(alarm);
  return alarm;
}

/**
 * Any quarantined delivery is a bug of ours with a customer's points waiting on it: alarm on the first
 * one (receive-webhook counts each as QuarantinedDeliveries, service dimension), on the stage's topic.
 */
export function addQuarantineAlarm(scope: Construct, alarms: OperationsAlarms, props: StageMetrics): Alarm {
  return addFirstOccurrenceAlarm(scope, alarms, {
    ...props,
    alarmId: 'QuarantinedDeliveries',
    metricName: METRIC.quarantinedDeliveries,
    description:
      'Shopify sent an authentic delivery intake could not read; it was answered 200 and kept. ' +
      'npm run quarantine -- list --stage <stage> shows why; fix, deploy, then replay it.',
  });
}

/**
 * The membership service refused an event with a 4xx the spec gives no meaning: the event is parked
 * (outcome upstream_rejected in the ledger), not retried; alarm on the first one.
 */
export function addUpstreamRejectedAlarm(scope: Construct, alarms: OperationsAlarms, props: StageMetrics): Alarm {
  return addFirstOccurrenceAlarm(scope, alarms, {
    ...props,
    alarmId: 'UpstreamRejected',
    metricName: outcomeMetric('upstream_rejected'),
    description:
      'The membership Open API refused an event with an error it does not document (a 4xx such as 403 or 422): the event is parked ' +
      'with outcome upstream_rejected. docs/runbook.md, UpstreamRejected.',
  });
}
