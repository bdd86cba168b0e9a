import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC, UNEXPECTED_ERROR_OUTCOME, outcomeMetric, upstreamCallsMetric } from '../../../shared/metrics/names.js';
import { OUTCOME_KINDS } from '../../../shared/events/index.js';
import { POINTS_API_OPERATIONS } from '../../../shared/points/instrument.js';
import { ENDPOINT_NAMES } from '../../../shared/openapi/index.js';
import { synthesiseRealApp, type SynthesisedApp } from '../support/app.js';
import type { Json } from '../../support/json.js';

let app: SynthesisedApp;
beforeAll(() => {
  app = synthesiseRealApp();
});
afterAll(() => app?.dispose());

type Resource = { Type: string; Properties: Record<string, Json> };

/** The dashboard body as CloudWatch gets it, with each CloudFormation reference written as `{ref:<logical id>}`. */
function dashboardBody(template: Template): { widgets: { type: string; properties: Record<string, Json> }[] } {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard')) as Resource[];
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0]!.Properties.DashboardBody;
  const parts: unknown[] = typeof body === 'string' ? [body] : body['Fn::Join'][1];
  const text = parts.map((p) => (typeof p === 'string' ? p : `{ref:${JSON.stringify(p).replace(/[^A-Za-z0-9]/g, '')}}`)).join('');
  return JSON.parse(text);
}

/** Every (namespace, metric name) a widget draws, SEARCH expressions included. */
function widgetMetrics(body: ReturnType<typeof dashboardBody>): { namespace: string; name: string }[] {
  const found: { namespace: string; name: string }[] = [];
  for (const w of body.widgets) {
    for (const row of (w.properties.metrics ?? []) as unknown[][]) {
      const options = row.at(-1) as { expression?: string } | undefined;
      if (typeof options === 'object' && options?.expression) {
        const withSchema = /SEARCH\('\{([^,}]+)[^}]*\} MetricName="([^"]+)"'/.exec(options.expression);
        const withoutSchema = /SEARCH\('Namespace="([^"]+)" MetricName="([^"]+)"'/.exec(options.expression);
        const search = withSchema ?? withoutSchema;
        if (search) found.push({ namespace: search[1]!, name: search[2]! });
        else if (/SEARCH/.test(options.expression)) throw new Error(`unreadable search: ${options.expression}`);
        continue;
      }
      if (typeof row[0] === 'string' && typeof row[1] === 'string') found.push({ namespace: row[0], name: row[1] });
    }
  }
  return found;
}

const NAMES = new Set<string>([
  ...Object.entries(METRIC)
    .filter(([key]) => !key.endsWith('Prefix'))
    .map(([, name]) => name),
  ...[...OUTCOME_KINDS, UNEXPECTED_ERROR_OUTCOME].map(outcomeMetric),
  // Every function counts each request it sends by its endpoint's name (shared/openapi: onSend).
  ...ENDPOINT_NAMES.map(upstreamCallsMetric),
]);

describe('the operations dashboard', () => {
  it('draws only metrics of our namespace named in shared/metrics/names.ts, besides AWS service metrics', () => {
    for (const name of ['staging', 'production']) {
      const { template, stack } = app.stages.get(name)!;
      const metrics = widgetMetrics(dashboardBody(template));
      expect(metrics.length).toBeGreaterThan(30);
      for (const m of metrics) {
        if (m.namespace.startsWith('AWS/')) continue;
        expect(m.namespace, m.name).toBe(stack.config.observability.metricsNamespace);
        expect(NAMES.has(m.name), `${m.name} is not in shared/metrics/names.ts`).toBe(true);
      }
    }
  });

  it('shows deliveries, quarantine, outcomes, the circuit breaker, rate budget, deferrals, reconcile and audit metrics', () => {
    const drawn = new Set(widgetMetrics(dashboardBody(app.stages.get('staging')!.template)).map((m) => m.name));
    const wanted = [
      METRIC.deliveriesAccepted,
      METRIC.deliveriesIgnored,
      METRIC.deliveriesRefused,
      METRIC.quarantinedDeliveries,
      METRIC.deliveriesOtherApiVersion,
      METRIC.upstreamLatency,
      METRIC.upstreamErrors,
      METRIC.circuitBreakerOpen,
      METRIC.eventsDeferred,
      METRIC.deferredEventAgeSeconds,
      METRIC.auditDrift,
      METRIC.duplicatesReversed,
      METRIC.reconcileMissing,
      METRIC.callsInDoubt,
      METRIC.searchesIncomplete,
      METRIC.siblingRefundsWaiting,
      ...OUTCOME_KINDS.map(outcomeMetric),
      ...POINTS_API_OPERATIONS.map(upstreamCallsMetric),
    ];
    expect(wanted.filter((n) => !drawn.has(n))).toEqual([]);
  });

  it('shows queue depth, oldest message age, dead letters and errors, throttles and durations of every function', () => {
    const { template } = app.stages.get('staging')!;
    const metrics = widgetMetrics(dashboardBody(template));
    const aws = (ns: string) => new Set(metrics.filter((m) => m.namespace === ns).map((m) => m.name));
    expect(aws('AWS/SQS')).toEqual(
      new Set(['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateAgeOfOldestMessage']),
    );
    expect(aws('AWS/Lambda')).toEqual(new Set(['Errors', 'Throttles', 'Duration']));
    const functions = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) => !id.startsWith('LogRetention'));
    const body = JSON.stringify(dashboardBody(template));
    for (const id of functions) expect(body, id).toContain(`{ref:Ref${id}}`);
  });

  it('shows whether the worker pulls: a widget of the PullingPaused metric the recovery tick publishes each minute', () => {
    const { template } = app.stages.get('staging')!;
    const body = dashboardBody(template);
    const widget = body.widgets.find((w) => String(w.properties.title).startsWith('Pulling paused'));
    expect(widget).toBeDefined();
    expect(widgetMetrics({ widgets: [widget!] })).toEqual([{ namespace: expect.any(String), name: METRIC.pullingPaused }]);
  });

  it('shows the state of every alarm of the stage', () => {
    const { template } = app.stages.get('production')!;
    const alarmIds = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
    const status = dashboardBody(template).widgets.find((w) => w.type === 'alarm' && Array.isArray(w.properties.alarms));
    expect(status).toBeDefined();
    const shown = JSON.stringify(status!.properties.alarms);
    expect(alarmIds.length).toBeGreaterThanOrEqual(7);
    for (const id of alarmIds) expect(shown, id).toContain(`{ref:FnGetAtt${id}Arn}`);
  });
});
