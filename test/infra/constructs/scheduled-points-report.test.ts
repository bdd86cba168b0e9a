import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../../shared/config/index.js';
import { OUTPUT_KEYS } from '../../../infra/outputs.js';
import { synthesiseRealApp, type SynthesisedApp } from '../support/app.js';
import type { Json } from '../../support/json.js';

let app: SynthesisedApp;
beforeAll(() => {
  app = synthesiseRealApp();
});
afterAll(() => app?.dispose());

type Resource = { Type: string; Properties: Record<string, Json> };
const stage = (name: string) => app.stages.get(name)!;

function exportFunction(template: Template): [string, Resource] {
  const found = Object.entries(
    template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('points report') } }),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

/** The report bucket: the one whose default encryption is a KMS key. */
function reportBucket(template: Template): [string, Resource] {
  const found = Object.entries(template.findResources('AWS::S3::Bucket')).filter(([, b]) =>
    JSON.stringify((b as Resource).Properties.BucketEncryption).includes('aws:kms'),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

describe('the monthly points report export', () => {
  it('runs at 01:00 JST on the 1st of each month (16:00 UTC on the last day of the month before)', () => {
    const { template } = stage('production');
    const [fnId] = exportFunction(template);
    const rules = (Object.values(template.findResources('AWS::Events::Rule')) as Resource[]).filter((r) =>
      JSON.stringify(r.Properties.Targets).includes(fnId),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties.ScheduleExpression).toBe('cron(0 16 L * ? *)');
  });

  it('writes to a bucket encrypted with its own rotated KMS key, public access blocked, SSL only, versioned, access logged', () => {
    const { template } = stage('staging');
    const [bucketId, bucket] = reportBucket(template);
    const rule = bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0];
    const keyId = rule.ServerSideEncryptionByDefault.KMSMasterKeyID['Fn::GetAtt'][0] as string;
    expect(template.findResources('AWS::KMS::Key')[keyId]).toMatchObject({ Properties: { EnableKeyRotation: true } });
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.Properties.LoggingConfiguration.DestinationBucketName).toEqual({ Ref: expect.any(String) });
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy')).find(
      (p) => (p as Resource).Properties.Bucket.Ref === bucketId,
    ) as Resource;
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });

  it('may scan the ledger, make data keys with the report key and put objects under points-report/, nothing else', () => {
    const { template } = stage('staging');
    const [, fn] = exportFunction(template);
    const [bucketId] = reportBucket(template);
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    expect((template.findResources('AWS::IAM::Role')[roleId] as Resource).Properties.ManagedPolicyArns ?? []).toEqual([]);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
      .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]);
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).sort();
    expect(actions).toEqual(['dynamodb:Scan', 'kms:GenerateDataKey', 'logs:CreateLogStream', 'logs:PutLogEvents']);
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy')).find(
      (p) => (p as Resource).Properties.Bucket.Ref === bucketId,
    ) as Resource;
    const grants = (
      policy.Properties.PolicyDocument.Statement as { Effect: string; Action: string; Principal: Json; Resource: Json }[]
    ).filter((s) => s.Effect === 'Allow');
    expect(grants).toEqual([
      expect.objectContaining({
        Action: 's3:PutObject',
        Principal: { AWS: { 'Fn::GetAtt': [roleId, 'Arn'] } },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/points-report/*']] },
      }),
    ]);
  });

  it('runs the export code with the ledger, the sources and the bucket, and names the bucket in the outputs', () => {
    const { template } = stage('staging');
    const [, fn] = exportFunction(template);
    const [bucketId] = reportBucket(template);
    const env = fn.Properties.Environment.Variables;
    expect(env[ENV.POINTS_REPORT_BUCKET]).toEqual({ Ref: bucketId });
    expect(env[ENV.LEDGER_TABLE]).toEqual({ Ref: Object.keys(template.findResources('AWS::DynamoDB::Table'))[0] });
    expect(typeof env[ENV.SOURCES_CONFIG]).toBe('string');
    expect(template.toJSON().Outputs[OUTPUT_KEYS.pointsReportBucket]).toEqual({ Value: { Ref: bucketId } });
  });
});
