import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OperationsAlarms, type OperationsAlarmsProps } from '../../../infra/constructs/alarms.js';

/** The alarms alone, around stand-in resources (no bundling: a second per test, not per synth). */
function alarmsTemplate(options: Pick<OperationsAlarmsProps, 'email' | 'topicArn'>): Template {
  const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Alarms', {
    env: { account: '111111111111', region: 'eu-west-1' },
  });
  const fn = new LambdaFunction(stack, 'Fn', { runtime: Runtime.NODEJS_24_X, handler: 'index.handler', code: Code.fromInline('0') });
  new OperationsAlarms(stack, 'Ops', {
    ...options,
    stageName: 'test',
    queue: new Queue(stack, 'Q'),
    deadLetterQueue: new Queue(stack, 'D'),
    functions: [{ name: 'Fn', fn }],
    metricsNamespace: 'Ns',
    serviceName: 'svc',
    oldestMessageAgeSeconds: 600,
    upstreamFailurePercent: 5,
    upstreamBudgetPerMinute: 1800,
  });
  return Template.fromStack(stack);
}

describe('operations alarms', () => {
  it('notify an existing topic when one is configured, creating none', () => {
    const topicArn = 'arn:aws:sns:eu-west-1:111111111111:ops-pager';
    const template = alarmsTemplate({ topicArn });
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.resourceCountIs('AWS::KMS::Key', 0);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(5);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([topicArn]);
  });

  it('create an encrypted topic without subscriptions when no e-mail is configured', () => {
    const template = alarmsTemplate({});
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('let CloudWatch use the topic key, so alarms can publish to the encrypted topic', () => {
    const template = alarmsTemplate({});
    const [key] = Object.values(template.findResources('AWS::KMS::Key'));
    expect(JSON.stringify(key!.Properties.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
  });

  it('let CloudWatch use the topic key only on behalf of this account (no confused deputy)', () => {
    const template = alarmsTemplate({});
    const [key] = Object.values(template.findResources('AWS::KMS::Key'));
    const statements = key!.Properties.KeyPolicy.Statement as Array<{
      Principal?: { Service?: string };
      Condition?: Record<string, Record<string, unknown>>;
    }>;
    const forCloudWatch = statements.filter((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com');
    expect(forCloudWatch).toHaveLength(1);
    expect(forCloudWatch[0]!.Condition?.StringEquals?.['aws:SourceAccount']).toBe('111111111111');
  });

  it("let this stage's alarms publish to the created topic, whose TLS-only policy replaces SNS's default one", () => {
    const template = alarmsTemplate({});
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowThisStagesAlarmsToPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: topicId },
            Condition: {
              StringEquals: { 'aws:SourceAccount': '111111111111' },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:eu-west-1:111111111111:alarm:loyalty-bridge-test-*']],
                },
              },
            },
          },
        ]),
      },
    });
  });

  it('alarm when the busiest endpoint’s calls in a minute, from every function, reach 90 % of the budget', () => {
    const template = alarmsTemplate({ topicArn: 'arn:aws:sns:eu-west-1:111111111111:ops-pager' });
    const [alarm] = Object.values(
      template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: 'loyalty-bridge-test-UpstreamBudgetNearlySpent' } }),
    );
    expect(alarm?.Properties.Threshold).toBe(1620);
    const metrics = alarm?.Properties.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string }; Period: number };
    }[];
    expect(metrics.find((m) => m.Expression)?.Expression).toMatch(/^MAX\(\[/);
    const names = metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : []));
    expect(names).toEqual(
      expect.arrayContaining(['UpstreamCalls_getMemberByExternalId', 'UpstreamCalls_calculatePoints', 'UpstreamCalls_checkHandoverToken']),
    );
    for (const m of metrics) if (m.MetricStat) expect(m.MetricStat.Period).toBe(60);
  });
});
