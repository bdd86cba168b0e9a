import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, UNEXPECTED_ERROR_OUTCOME, outcomeMetric, upstreamCallsMetric } from '../../shared/metrics/index.js';
import { OUTCOME_KINDS } from '../../shared/points/index.js';
import type { SenderWidget } from '../../shared/sources/ops.entry.js';
import { UPSTREAM_BUDGET_OPERATIONS, upstreamBudgetAlarmThreshold } from './alarms.js';

export type OperationsDashboardProps = {
  dashboardName: string;
  metricsNamespace: string;
  serviceName: string;
  queue: IQueue;
  deadLetterQueue: IQueue;
  functions: { name: string; fn: IFunction }[];
  alarms: Alarm[];
  /** Open API requests per minute per endpoint: the service's ceiling, and the deployment's one budget (every function together). */
  upstreamCeilingPerMinute: number;
  upstreamBudgetPerMinute: number;
  /** The graphs the stage's senders declare (shared/sources/<kind>/ops.ts: Smaregi's failed API reads). */
  senderWidgets?: readonly SenderWidget[];
};

const FIVE_MINUTES = Duration.minutes(5);

type GraphProps = Partial<ConstructorParameters<typeof GraphWidget>[0]>;

/** How the widgets name their metrics: ours (the service dimension), searches, and a graph's default size. */
interface Widgets {
  props: OperationsDashboardProps;
  ours(metricName: string, statistic?: string, label?: string): Metric;
  /** One of ours at another period (a per-minute rate, a daily figure). */
  oursEvery(metricName: string, statistic: string, period: Duration, label: string): Metric;
  search(metricName: string, dimensions: string[], statistic?: string, period?: Duration): MathExpression;
  graph(title: string, left: IMetric[], extra?: GraphProps): GraphWidget;
}

function widgetsFor(props: OperationsDashboardProps): Widgets {
  const ns = props.metricsNamespace;
  return {
    props,
    ours: (metricName, statistic = 'Sum', label) =>
      new Metric({
        namespace: ns,
        metricName,
        dimensionsMap: { service: props.serviceName },
        statistic,
        period: FIVE_MINUTES,
        ...(label ? { label } : {}),
      }),
    oursEvery: (metricName, statistic, period, label) =>
      new Metric({ namespace: ns, metricName, dimensionsMap: { service: props.serviceName }, statistic, period, label }),
    // Metrics with dimension values only known at run time (source, kind): one line per combination. A
    // schema {namespace, dims} matches exactly those dimensions; `[]`: metrics emitted by other modules,
    // matched whatever their dimensions (no schema, namespace and name designators).
    search: (metricName, dimensions, statistic = 'Sum', period = FIVE_MINUTES) =>
      new MathExpression({
        expression:
          dimensions.length > 0
            ? `SEARCH('{${[ns, ...dimensions].join(',')}} MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`
            : `SEARCH('Namespace="${ns}" MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
        usingMetrics: {},
        period,
        label: '',
      }),
    graph: (title, left, extra = {}) => new GraphWidget({ title, left, width: 8, height: 6, ...extra }),
  };
}

type Row = IWidget[];

function titleRow({ props }: Widgets): Row {
  return [
    new TextWidget({
      markdown: `# Loyalty points bridge: ${props.dashboardName}\nIntake, processing, queue, membership service, functions, audit. Alarms at the bottom; the books: \`npm run audit\`.`,
      width: 24,
      height: 2,
    }),
  ];
}

function intakeRow({ graph, search }: Widgets): Row {
  return [
    graph('Deliveries accepted (by source, event type)', [search(METRIC.deliveriesAccepted, ['service', 'source', 'kind'])]),
    graph('Deliveries refused (by source, reason)', [search(METRIC.deliveriesRefused, ['service', 'source', 'kind'])]),
    graph('Deliveries ignored / quarantined / other API version', [
      search(METRIC.deliveriesIgnored, ['service', 'source', 'kind']),
      search(METRIC.quarantinedDeliveries, []),
      search(METRIC.quarantinedBodiesNotKept, []),
      // kind: the X-Shopify-API-Version received (docs/runbook.md, "Upgrading the Shopify API version").
      search(METRIC.deliveriesOtherApiVersion, ['service', 'source', 'kind']),
    ]),
  ];
}

function processingRow({ graph, ours, search }: Widgets): Row {
  const outcomes = [...OUTCOME_KINDS, UNEXPECTED_ERROR_OUTCOME].map((k) => ours(outcomeMetric(k), 'Sum', k));
  return [
    graph('Events by outcome', outcomes, { width: 12, stacked: true }),
    graph('Points moved', [ours(METRIC.pointsCredited, 'Sum', 'credited'), ours(METRIC.pointsDebited, 'Sum', 'debited')], { width: 6 }),
    graph(
      'Retries, reconciliations, deferrals',
      [
        ours(METRIC.retries, 'Sum', 'retries'),
        ours(METRIC.reconciliations, 'Sum', 'found in the history'),
        search(METRIC.eventsDeferred, []),
        ours(METRIC.budgetDeferrals, 'Sum', 'waiting for the upstream budget'),
        ours(METRIC.callsInDoubt, 'Sum', 'in doubt (all reasons)'),
        ours(METRIC.searchesIncomplete, 'Sum', 'in doubt: search incomplete'),
        ours(METRIC.siblingRefundsWaiting, 'Sum', 'in doubt: refund waiting for a sibling'),
      ],
      {
        width: 6,
        right: [search(METRIC.deferredEventAgeSeconds, [], 'Maximum')],
        rightYAxis: { label: 'deferred age (s)', showUnits: false },
      },
    ),
  ];
}

function queueRow({ graph, oursEvery, props }: Widgets): Row {
  return [
    // The recovery tick's minute datapoints: when the line went to 1 is since when pulling is off (npm run
    // pause, or an outage); the console says which and until when.
    graph('Pulling paused (1 = paused: planned or outage)', [oursEvery(METRIC.pullingPaused, 'Maximum', Duration.minutes(1), 'paused')], {
      width: 6,
    }),
    graph(
      'Queue depth',
      [
        props.queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum', label: 'waiting' }),
        props.queue.metricApproximateNumberOfMessagesNotVisible({ period: Duration.minutes(1), statistic: 'Maximum', label: 'in flight' }),
      ],
      { width: 6 },
    ),
    graph(
      'Oldest queued event (s)',
      [props.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' })],
      { width: 6 },
    ),
    graph(
      'Dead-letter queue depth',
      [
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
          label: 'dead letters',
        }),
      ],
      { width: 6 },
    ),
  ];
}

function upstreamRow({ graph, ours, oursEvery, search, props }: Widgets): Row {
  const callsPerMinute = UPSTREAM_BUDGET_OPERATIONS.map((op) => oursEvery(upstreamCallsMetric(op), 'Sum', Duration.minutes(1), op));
  return [
    graph(
      'Open API latency (ms)',
      [
        ours(METRIC.upstreamLatency, 'p50', 'p50'),
        ours(METRIC.upstreamLatency, 'p99', 'p99'),
        ours(METRIC.upstreamLatency, 'Maximum', 'max'),
      ],
      { width: 6 },
    ),
    graph(
      'Open API failure rate (%)',
      [
        new MathExpression({
          expression: 'IF(calls > 0, 100 * failures / calls, 0)',
          usingMetrics: { calls: ours(METRIC.upstreamLatency, 'SampleCount'), failures: ours(METRIC.upstreamErrors) },
          period: FIVE_MINUTES,
          label: 'failed calls (%)',
        }),
      ],
      { width: 6 },
    ),
    graph('Circuit breaker (1 = open)', [search(METRIC.circuitBreakerOpen, [], 'Maximum')], { width: 6 }),
    graph('Rate budget: requests per minute per endpoint', callsPerMinute, {
      width: 6,
      leftAnnotations: [
        { value: props.upstreamCeilingPerMinute, label: 'service ceiling' },
        { value: props.upstreamBudgetPerMinute, label: 'budget (every function together)' },
        { value: upstreamBudgetAlarmThreshold(props.upstreamBudgetPerMinute), label: 'alarm (90 % of the budget)' },
      ],
    }),
  ];
}

function functionsRow({ graph, props }: Widgets): Row {
  const each = (f: (fn: IFunction, name: string) => IMetric) => props.functions.map(({ name, fn }) => f(fn, name));
  return [
    graph(
      'Function errors',
      each((fn, name) => fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum', label: name })),
    ),
    graph(
      'Function throttles',
      each((fn, name) => fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum', label: name })),
    ),
    graph(
      'Function duration p99 (ms)',
      each((fn, name) => fn.metricDuration({ period: FIVE_MINUTES, statistic: 'p99', label: name })),
    ),
  ];
}

function auditRow({ graph, ours, oursEvery, search, props }: Widgets): Row {
  const day = Duration.days(1);
  const senders = props.senderWidgets ?? [];
  const width = Math.floor(24 / (2 + senders.length));
  return [
    graph(
      'Audit: drift found (daily)',
      [
        oursEvery(METRIC.auditDrift, 'Maximum', day, 'drift'),
        oursEvery(METRIC.auditRecords, 'Maximum', day, 'records audited'),
        oursEvery(METRIC.duplicatesReversed, 'Sum', day, 'duplicates reversed'),
      ],
      { width },
    ),
    graph('Reconcile (Shopify, Smaregi): sales missing from the ledger', [search(METRIC.reconcileMissing, [], 'Sum', day)], { width }),
    ...senders.map((w) => graph(w.title, [ours(w.metric, 'Sum', w.label)], { width })),
  ];
}

/**
 * One CloudWatch dashboard per stage: intake, processing, queue, upstream, functions, audit, and the
 * state of every alarm. Every metric of ours is named from shared/metrics/names.ts, the list the
 * emitters use, so no widget can point at a metric nobody publishes.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(6),
    });
    const widgets = widgetsFor(props);
    for (const row of [titleRow, intakeRow, processingRow, queueRow, upstreamRow, functionsRow, auditRow]) {
      this.dashboard.addWidgets(...row(widgets));
    }
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: 24, height: 4 }));
  }
}
