import { Duration } from 'aws-cdk-lib';
import { type Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { outcomeMetric } from '../../shared/metrics/index.js';
import type { OperationsAlarms } from './alarms.js';

/**
 * The membership service refused an event with a 4xx its spec never gives (shared/openapi/README.md,
 * "How a 4xx is recognised"): the event is parked with outcome upstream_rejected, not retried into
 * the DLQ. Alarm on the first one (process-events counts it as Outcome_upstream_rejected).
 */
export function addUpstreamRejectedAlarm(alarms: OperationsAlarms, props: { metricsNamespace: string; serviceName: string }): Alarm {
  return alarms.addAlarm(
    'UpstreamRejected',
    new Metric({
      namespace: props.metricsNamespace,
      metricName: outcomeMetric('upstream_rejected'),
      dimensionsMap: { service: props.serviceName },
      statistic: 'Sum',
      period: Duration.minutes(5),
    }),
    1,
    'The membership Open API refused an event with an error its spec does not give (a 4xx such as 403 or 422): the event is parked ' +
      'with outcome upstream_rejected, not retried. docs/runbook.md, UpstreamRejected.',
  );
}
