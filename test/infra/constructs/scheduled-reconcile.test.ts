import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminTokenSecretName, type StageConfig } from '../../../infra/config/index.js';
import { ENV } from '../../../shared/config/index.js';
import { METRIC } from '../../../shared/metrics/names.js';
import { synthesiseRealApp, type SynthesisedApp } from '../support/app.js';
import type { Json } from '../../support/json.js';

/** Scheduled reconciliation in the real app as `cdk synth` builds it (cdk-nag included). */

let app: SynthesisedApp;
beforeAll(() => {
  app = synthesiseRealApp();
});
afterAll(() => app?.dispose());

type Resource = { Type: string; Properties: Record<string, Json>; DeletionPolicy?: string };

function stage(name: string): { template: Template; config: StageConfig } {
  const entry = app.stages.get(name);
  if (!entry) throw new Error(`no stage ${name}`);
  return { template: entry.template, config: entry.stack.config };
}

function reconcileFunction(template: Template): [string, Resource] {
  const found = Object.entries(
    template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Queues Shopify orders') } }),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

function statementsOf(template: Template, fn: Resource): { Action: string | string[]; Resource: unknown }[] {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
    (p as Resource).Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId),
  ) as Resource[];
  expect((template.findResources('AWS::IAM::Role')[roleId] as Resource).Properties.ManagedPolicyArns ?? []).toEqual([]);
  return policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('scheduled reconciliation with Shopify', () => {
  it('runs every configured interval for each reconciled source, naming the source in its input', () => {
    const { template, config } = stage('staging');
    const [fnId] = reconcileFunction(template);
    const settings = config.reconcile.shopify!;
    // The stage has other schedules too (audit, reconciliation): only the rules that target this function.
    const rules = (Object.values(template.findResources('AWS::Events::Rule')) as Resource[]).filter((r) =>
      JSON.stringify(r.Properties.Targets).includes(fnId),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties.ScheduleExpression).toBe(`rate(${settings.everyMinutes} minutes)`);
    expect(rules[0]!.Properties.Targets).toEqual([
      expect.objectContaining({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] }, Input: JSON.stringify({ source: 'shopify' }) }),
    ]);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
  });

  it('tells the function the shop, the window and where the token is', () => {
    const { template, config } = stage('staging');
    const [, fn] = reconcileFunction(template);
    const env = fn.Properties.Environment.Variables;
    const sources = JSON.stringify(env[ENV.RECONCILE_SOURCES]);
    expect(sources).toContain(config.reconcile.shopify!.shopDomain);
    expect(sources).toContain(`lookbackHours\\":${config.reconcile.shopify!.lookbackHours}`);
    const [secretId] = Object.keys(
      template.findResources('AWS::SecretsManager::Secret', { Properties: { Name: adminTokenSecretName(config, 'shopify') } }),
    );
    expect(sources).toContain(secretId);
    expect(Object.keys(JSON.parse(env[ENV.SOURCES_CONFIG]))).toContain('shopify');
  });

  it('creates the Admin API token secret empty, for the operator to fill, and keeps it in production', () => {
    const { template, config } = stage('production');
    const found = Object.values(
      template.findResources('AWS::SecretsManager::Secret', { Properties: { Name: adminTokenSecretName(config, 'shopify') } }),
    ) as Resource[];
    expect(found).toHaveLength(1);
    expect(found[0]!.Properties.SecretString).toBe(JSON.stringify({ access_token: '' }));
    expect(found[0]!.DeletionPolicy).toBe('Retain');
  });

  it('lets the function read ledger items, file its run summary, send to the queue and read its token, nothing more', () => {
    const { template, config } = stage('staging');
    const [, fn] = reconcileFunction(template);
    const statements = statementsOf(template, fn);
    const [tableId] = Object.keys(template.findResources('AWS::DynamoDB::Table'));
    const [queueId] = Object.keys(template.findResources('AWS::SQS::Queue', { Properties: { DeduplicationScope: 'messageGroup' } }));
    const [secretId] = Object.keys(
      template.findResources('AWS::SecretsManager::Secret', { Properties: { Name: adminTokenSecretName(config, 'shopify') } }),
    );
    const logGroup = fn.Properties.LoggingConfig.LogGroup.Ref as string;
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] } }),
        expect.objectContaining({ Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': [tableId, 'Arn'] } }),
        expect.objectContaining({ Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } }),
        expect.objectContaining({
          Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
          Resource: { Ref: secretId },
        }),
        // Its run summaries: the activity record's runs item, nothing else of the table.
        expect.objectContaining({
          Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
          Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
          Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['activity#runs'] } },
        }),
      ]),
    );
    expect(statements).toHaveLength(5);
  });

  it('alarms when runs in a row keep finding events Shopify did not deliver', () => {
    const { template, config } = stage('staging');
    const settings = config.reconcile.shopify!;
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: METRIC.reconcileMissing,
      Namespace: config.observability.metricsNamespace,
      Dimensions: Match.arrayWith([
        { Name: 'service', Value: config.observability.serviceName },
        { Name: 'source', Value: 'shopify' },
      ]),
      Period: settings.everyMinutes * 60,
      EvaluationPeriods: settings.alarmAfterRuns,
      DatapointsToAlarm: settings.alarmAfterRuns,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
    });
  });

  it('watches the reconcile function for failed runs', () => {
    const { template } = stage('staging');
    const [fnId] = reconcileFunction(template);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
    });
  });
});
