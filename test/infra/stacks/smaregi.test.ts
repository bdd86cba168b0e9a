import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMAREGI_ENV } from '../../../shared/sources/smaregi/index.js';
import type { Json } from '../../support/json.js';
import { synthesiseDevStageWith } from '../support/app.js';

/**
 * A stage with a Smaregi source, built and synthesised by the real app (cdk-nag included, which throws
 * on any unacknowledged finding).
 */
let template: Template;
let dispose: () => void;
beforeAll(() => {
  ({ template, dispose } = synthesiseDevStageWith({
    smaregi: { contractId: 'sb_abc123', hosts: 'sandbox', reconcile: { everyMinutes: 30 } },
  }));
});
afterAll(() => dispose());

type Resource = { Properties: Record<string, Json> };
const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];
const fn = (prefix: string) => resources('AWS::Lambda::Function').find((f) => String(f.Properties.Description).startsWith(prefix));
const statements = () =>
  resources('AWS::IAM::Policy').flatMap((p) =>
    (p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown; Condition?: unknown }[]).map((s) => ({
      ...s,
      policy: p,
    })),
  );

describe('a Smaregi source in the stack', () => {
  it('routes POST /webhooks/smaregi', () => {
    const routes = resources('AWS::ApiGatewayV2::Route').map((r) => r.Properties.RouteKey);
    expect(routes).toContain('POST /webhooks/smaregi');
  });

  it("creates empty secrets for the webhook header's value and the app's client id and secret", () => {
    const names = resources('AWS::SecretsManager::Secret').map((s) => s.Properties.Name);
    expect(names).toEqual(expect.arrayContaining(['loyalty-bridge/dev/webhook/smaregi', 'loyalty-bridge/dev/smaregi-app/smaregi']));
  });

  it('gives the worker its contract, hosts and the app secret by ARN, never a credential', () => {
    const value = JSON.stringify(fn('Credits')?.Properties.Environment.Variables[SMAREGI_ENV]);
    expect([
      value.includes('sb_abc123'),
      value.includes('sandbox'),
      value.includes('credentialsSecretArn'),
      value.includes('client_secret'),
    ]).toEqual([true, true, true, false]);
  });

  it('lets only the worker and the Smaregi reconcile read the app secret', () => {
    const readers = statements()
      .filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue') && /SmaregiApp/.test(JSON.stringify(s.Resource)))
      .map((s) => JSON.stringify(s.policy.Properties.Roles));
    expect(readers).toHaveLength(2);
    expect(readers.join(' ')).toMatch(/ProcessEvents/);
    expect(readers.join(' ')).toMatch(/ReconcileSmaregi/);
  });

  it('runs the Smaregi reconcile on its schedule with the source as input', () => {
    const rules = resources('AWS::Events::Rule').filter((r) => String(r.Properties.Description).includes('Smaregi'));
    expect(
      rules.map((r) => [r.Properties.ScheduleExpression, JSON.parse(String((r.Properties.Targets as { Input: string }[])[0]?.Input))]),
    ).toEqual([['rate(30 minutes)', { source: 'smaregi' }]]);
  });

  it('lets the Smaregi reconcile read ledger items, file its run summary, send to the queue and write its own logs, nothing more', () => {
    const actions = statements()
      .filter((s) => /ReconcileSmaregi/.test(JSON.stringify(s.policy.Properties.Roles)))
      .flatMap((s) => [s.Action].flat() as string[]);
    expect([...new Set(actions)].sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
    ]);
  });

  it("lets the Smaregi reconcile write only the activity record's runs item", () => {
    const puts = statements().filter(
      (s) => /ReconcileSmaregi/.test(JSON.stringify(s.policy.Properties.Roles)) && [s.Action].flat().includes('dynamodb:PutItem'),
    );
    expect(puts).toHaveLength(1);
    expect(puts[0]?.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['activity#runs'] } });
  });

  it("alarms when the Smaregi reconcile fails and when the worker's Smaregi reads keep failing, and draws both", () => {
    const alarms = resources('AWS::CloudWatch::Alarm').map((a) => String(a.Properties.AlarmName));
    const dashboard = JSON.stringify(resources('AWS::CloudWatch::Dashboard')[0]?.Properties.DashboardBody);
    expect({
      alarms: alarms.filter((n) => /ReconcileSmaregiErrors|SmaregiApiErrors/.test(n)).sort(),
      drawn: ['SmaregiApiErrors', 'Smaregi: failed API reads'].filter((t) => !dashboard.includes(t)),
    }).toEqual({ alarms: ['loyalty-bridge-dev-ReconcileSmaregiErrors', 'loyalty-bridge-dev-SmaregiApiErrors'], drawn: [] });
  });

  it('alarms within the hour a till spend the membership balance cut short (TillSpendShortfalls), and draws it', () => {
    const alarm = resources('AWS::CloudWatch::Alarm').find((a) => a.Properties.AlarmName === 'loyalty-bridge-dev-TillSpendShortfalls');
    const dashboard = JSON.stringify(resources('AWS::CloudWatch::Dashboard')[0]?.Properties.DashboardBody);
    expect([
      alarm?.Properties.MetricName,
      alarm?.Properties.Period,
      alarm?.Properties.Threshold,
      dashboard.includes('TillSpendShortfalls'),
    ]).toEqual(['TillSpendShortfalls', 3600, 1, true]);
  });

  it("alarms within the hour a till's plain return names no sale (UnlinkedReturns), and draws it", () => {
    const alarm = resources('AWS::CloudWatch::Alarm').find((a) => a.Properties.AlarmName === 'loyalty-bridge-dev-UnlinkedReturns');
    const dashboard = JSON.stringify(resources('AWS::CloudWatch::Dashboard')[0]?.Properties.DashboardBody);
    expect([
      alarm?.Properties.MetricName,
      alarm?.Properties.Period,
      alarm?.Properties.Threshold,
      dashboard.includes('UnlinkedReturns'),
    ]).toEqual(['UnlinkedReturns', 3600, 1, true]);
  });
});
