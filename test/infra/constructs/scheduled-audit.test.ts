import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../../shared/config/index.js';
import { METRIC } from '../../../shared/metrics/names.js';
import { synthesiseRealApp, type SynthesisedApp } from '../support/app.js';
import type { Json } from '../../support/json.js';

let app: SynthesisedApp;
beforeAll(() => {
  app = synthesiseRealApp();
});
afterAll(() => app?.dispose());

type Resource = { Type: string; Properties: Record<string, Json> };
const stage = (name: string) => app.stages.get(name)!;

function auditFunction(template: Template): [string, Resource] {
  const found = Object.entries(
    template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Audits the ledger') } }),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

function statementsOf(template: Template, fn: Resource): { Action: string | string[]; Resource: unknown }[] {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const role = template.findResources('AWS::IAM::Role')[roleId] as Resource;
  expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);
  return (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('the scheduled audit', () => {
  it('runs daily at the configured hour (UTC) on an EventBridge schedule', () => {
    const { template, stack } = stage('production');
    const [fnId] = auditFunction(template);
    // The stage has other schedules too (audit, reconciliation): only the rules that target this function.
    const rules = (Object.values(template.findResources('AWS::Events::Rule')) as Resource[]).filter((r) =>
      JSON.stringify(r.Properties.Targets).includes(fnId),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties.ScheduleExpression).toBe(`cron(0 ${stack.config.audit.hourUtc} * * ? *)`);
    expect(rules[0]!.Properties.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })]);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
  });

  it('runs the audit code over the configured days with the ledger, the Open API secret and the rate budget', () => {
    const { template, stack } = stage('staging');
    const [, fn] = auditFunction(template);
    const tableId = Object.keys(template.findResources('AWS::DynamoDB::Table'))[0]!;
    const env = fn.Properties.Environment.Variables;
    expect(env[ENV.LEDGER_TABLE]).toEqual({ Ref: tableId });
    expect(JSON.stringify(env[ENV.OPENAPI_SECRET_ARN])).toContain(`:secret:${stack.config.openApiSecretName}`);
    expect(env[ENV.AUDIT_DAYS]).toBe(String(stack.config.audit.days));
    expect(env[ENV.RATE_BUDGET_PER_MINUTE]).toBe(String(stack.config.rate.budgetPerMinute));
    expect(fn.Properties).toMatchObject({ Timeout: stack.config.audit.timeoutSeconds, Architectures: ['arm64'], Runtime: 'nodejs24.x' });
  });

  it('may only read the ledger table and the Open API secret, write its reversal records, file its run summary, and write its own logs', () => {
    const { template, stack } = stage('staging');
    const [, fn] = auditFunction(template);
    const tableId = Object.keys(template.findResources('AWS::DynamoDB::Table'))[0]!;
    const statements = statementsOf(template, fn);
    const actions = statements.flatMap((s) => [s.Action].flat());
    expect(actions.sort()).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:PutItem',
        'dynamodb:Scan',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
      ].sort(),
    );
    const dynamo = statements.find((s) => [s.Action].flat().includes('dynamodb:Scan'))!;
    expect(dynamo.Resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
    // Its writes, each by key: the activity record's runs item (the operator console's runs panel) and the reversal records.
    const writes = statements.filter((s) => [s.Action].flat().includes('dynamodb:PutItem')) as { Condition?: unknown }[];
    expect(writes.map((w) => w.Condition)).toEqual(
      expect.arrayContaining([
        { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['activity#runs'] } },
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['reversal#*'] } },
      ]),
    );
    expect(writes).toHaveLength(2);
    const update = statements.find((s) => [s.Action].flat().includes('dynamodb:UpdateItem')) as { Condition?: unknown } | undefined;
    expect(update?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['reversal#*'] } });
    const secret = statements.find((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))!;
    expect(JSON.stringify(secret.Resource)).toContain(`:secret:${stack.config.openApiSecretName}-??????`);
  });

  it('alarms on the stage topic when a run reversed a duplicate', () => {
    const { template, stack } = stage('production');
    const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0]!;
    const alarms = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]).map((a) => a.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({
        AlarmName: 'loyalty-bridge-production-DuplicatesReversed',
        Namespace: stack.config.observability.metricsNamespace,
        MetricName: METRIC.duplicatesReversed,
        Dimensions: [{ Name: 'service', Value: stack.config.observability.serviceName }],
        Statistic: 'Sum',
        Period: 86_400,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: topicId }],
      }),
    );
  });

  it("runs its reversals with the worker's lease, in-doubt horizon and insufficient-points policy", () => {
    const { template } = stage('staging');
    const [, fn] = auditFunction(template);
    const [worker] = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Description: Match.stringLikeRegexp('^Credits and debits points') },
      }),
    ) as Resource[];
    const env = fn.Properties.Environment.Variables;
    for (const name of [ENV.LEASE_SECONDS, ENV.IN_DOUBT_SECONDS, ENV.INSUFFICIENT_POINTS_POLICY, ENV.LEDGER_TTL_DAYS]) {
      expect(env[name], name).toBeDefined();
      expect(env[name], name).toEqual(worker!.Properties.Environment.Variables[name]);
    }
  });

  it('alarms on the stage topic when the published drift is above zero, and when a run fails', () => {
    const { template, stack } = stage('production');
    const [fnId] = auditFunction(template);
    const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0]!;
    const alarms = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]).map((a) => a.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: stack.config.observability.metricsNamespace,
        MetricName: METRIC.auditDrift,
        Dimensions: [{ Name: 'service', Value: stack.config.observability.serviceName }],
        Statistic: 'Maximum',
        Period: 86_400,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: topicId }],
      }),
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
        AlarmActions: [{ Ref: topicId }],
      }),
    );
  });
});
