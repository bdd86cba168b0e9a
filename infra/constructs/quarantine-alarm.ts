import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Construct } from 'constructs';
import { METRIC } from '../../shared/metrics/index.js';
import type { OperationsAlarms } from './alarms.js';

/**
 * Any quarantined delivery is a bug of ours with a customer's points waiting on it: alarm on the first
 * one (receive-webhook counts each new entry as QuarantinedDeliveries, service dimension), and on the
 * first whose body could not be kept (QuarantinedBodiesNotKept), on the stage's topic.
 */
export function addQuarantineAlarm(
  scope: Construct,
  alarms: OperationsAlarms,
  props: { stageName: string; metricsNamespace: string; serviceName: string },
): Alarm[] {
  return [
    firstOf(
      scope,
      alarms,
      props,
      METRIC.quarantinedDeliveries,
      'Shopify sent an authentic delivery intake could not read; it was answered 200 and kept. ' +
        'npm run quarantine -- list --stage <stage> shows why; fix, deploy, then replay it.',
    ),
    // A body over the table's item limit even compressed: only its hash, headers and the order it names are kept.
    firstOf(
      scope,
      alarms,
      props,
      METRIC.quarantinedBodiesNotKept,
      'A quarantined delivery was too large to keep even compressed: its hash, headers and the order or refund it names ' +
        '(npm run quarantine -- list) are kept, not its body. Fix, deploy, then npm run reconcile over its day to queue it from Shopify.',
    ),
  ];
}

/** An alarm on the first count of a receive-webhook metric in five minutes, on the stage's topic. */
function firstOf(
  scope: Construct,
  alarms: OperationsAlarms,
  props: { stageName: string; metricsNamespace: string; serviceName: string },
  metricName: string,
  description: string,
): Alarm {
  const alarm = new Alarm(scope, metricName, {
    alarmName: `loyalty-bridge-${props.stageName}-${metricName}`,
    alarmDescription: description,
    metric: new Metric({
      namespace: props.metricsNamespace,
      metricName,
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
