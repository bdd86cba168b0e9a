import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Construct } from 'constructs';
import { METRIC } from '../../shared/metrics/names.js';
import type { OperationsAlarms } from './alarms.js';

/**
 * Any quarantined delivery is a bug of ours with a customer's points waiting on it: alarm on the first
 * one (receive-webhook counts each as QuarantinedDeliveries, service dimension), on the stage's topic.
 */
export function addQuarantineAlarm(
  scope: Construct,
  alarms: OperationsAlarms,
  props: { stageName: string; metricsNamespace: string; serviceName: string },
): Alarm {
  const alarmId = 'QuarantinedDeliveries';
  const alarm = new Alarm(scope, alarmId, {
    alarmName: `loyalty-bridge-${props.stageName}-${alarmId}`,
    alarmDescription:
      'Shopify sent an authentic delivery intake could not read; it was answered 200 and kept. ' +
      'npm run quarantine -- list --stage <stage> shows why; fix, deploy, then replay it.',
    metric: new Metric({
      namespace: props.metricsNamespace,
      metricName: METRIC.quarantinedDeliveries,
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
