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

type Resource = { Type: string; Properties: Record<string, Json>; DeletionPolicy?: string };

function template(name: string): Template {
  const entry = app.stages.get(name);
  if (!entry) throw new Error(`no stage ${name}`);
  return entry.template;
}

function quarantineTable(t: Template): [string, Resource] {
  const tables = Object.entries(t.findResources('AWS::DynamoDB::Table')).filter(([id]) => id.startsWith('Quarantine'));
  expect(tables).toHaveLength(1);
  return tables[0] as [string, Resource];
}

function receiver(t: Template): Resource {
  const found = Object.values(
    t.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Verifies') } }),
  );
  expect(found).toHaveLength(1);
  return found[0] as Resource;
}

function worker(t: Template): Resource {
  const found = Object.values(
    t.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Credits') } }),
  );
  expect(found).toHaveLength(1);
  return found[0] as Resource;
}

function statementsOfRole(t: Template, roleId: string) {
  const policies = Object.values(t.findResources('AWS::IAM::Policy')).filter((p) =>
    (p as Resource).Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId),
  ) as Resource[];
  return policies.flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
}

describe('quarantine', () => {
  it('is a table with TTL, point-in-time recovery and encryption, kept in production', () => {
    const [, staging] = quarantineTable(template('staging'));
    expect(staging.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    const [, production] = quarantineTable(template('production'));
    expect(production.DeletionPolicy).toBe('Retain');
  });

  it('is named to receive-webhook, which may only upsert items in it', () => {
    const t = template('staging');
    const [tableId] = quarantineTable(t);
    const fn = receiver(t);
    expect(fn.Properties.Environment.Variables[ENV.QUARANTINE_TABLE]).toEqual({ Ref: tableId });
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    const onTable = statementsOfRole(t, roleId).filter((s) => JSON.stringify(s.Resource).includes(tableId));
    expect(onTable.flatMap((s) => [s.Action].flat())).toEqual(['dynamodb:UpdateItem']);
  });

  it('is named to the worker, which may list, read and update its entries (privacy requests) but never delete one', () => {
    const t = template('staging');
    const [tableId] = quarantineTable(t);
    const fn = worker(t);
    expect(fn.Properties.Environment.Variables[ENV.QUARANTINE_TABLE]).toEqual({ Ref: tableId });
    const onTable = statementsOfRole(t, fn.Properties.Role['Fn::GetAtt'][0] as string).filter((s) =>
      JSON.stringify(s.Resource).includes(tableId),
    );
    expect(onTable.flatMap((s) => [s.Action].flat()).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Scan', 'dynamodb:UpdateItem']);
  });

  /** The one alarm on the first count of `metricName` in five minutes, with its one action. */
  function firstCountAlarm(metricName: string): Resource {
    const alarms = Object.values(
      template('staging').findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: metricName } }),
    ) as Resource[];
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.Properties).toMatchObject({ Threshold: 1, Statistic: 'Sum', ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(alarms[0]!.Properties.AlarmActions).toHaveLength(1);
    return alarms[0]!;
  }

  it('alarms on the first quarantined delivery', () => {
    firstCountAlarm(METRIC.quarantinedDeliveries);
  });

  it('is encrypted with a customer managed key of its own, rotated, as it holds whole orders (personal data)', () => {
    const t = template('staging');
    const [, table] = quarantineTable(t);
    const sse = table.Properties.SSESpecification;
    expect(sse).toMatchObject({ SSEEnabled: true, SSEType: 'KMS' });
    const keyId = sse.KMSMasterKeyId['Fn::GetAtt'][0] as string;
    const key = t.findResources('AWS::KMS::Key')[keyId] as Resource;
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true });
    expect(key.Properties.Description).toMatch(/quarantine/i);
  });

  it('keeps its key in production when the stack goes', () => {
    const t = template('production');
    const [, table] = quarantineTable(t);
    const keyId = table.Properties.SSESpecification.KMSMasterKeyId['Fn::GetAtt'][0] as string;
    expect((t.findResources('AWS::KMS::Key')[keyId] as Resource).DeletionPolicy).toBe('Retain');
  });

  it('lets receive-webhook and the worker use the key only through DynamoDB', () => {
    const t = template('staging');
    const [, table] = quarantineTable(t);
    const keyId = table.Properties.SSESpecification.KMSMasterKeyId['Fn::GetAtt'][0] as string;
    const onKey = (roleId: string) => statementsOfRole(t, roleId).filter((s) => JSON.stringify(s.Resource).includes(keyId));
    for (const fn of [receiver(t), worker(t)]) {
      const statements = onKey(fn.Properties.Role['Fn::GetAtt'][0] as string) as { Action: string[]; Condition?: Json }[];
      expect(statements).toHaveLength(1);
      expect([statements[0]!.Action].flat().sort()).toEqual(['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']);
      expect(JSON.stringify(statements[0]!.Condition)).toContain('kms:ViaService');
    }
  });

  it('alarms on the first delivery whose body was too large to keep, naming reconcile as the way back', () => {
    expect(firstCountAlarm(METRIC.quarantinedBodiesNotKept).Properties.AlarmDescription).toContain('reconcile');
  });
});

describe('receive-webhook concurrency (docs/security.md: why no reserved concurrency)', () => {
  it('is bounded by the API stage throttle, not by a reserved concurrency that would refuse a flash sale', () => {
    const t = template('production');
    expect(receiver(t).Properties.ReservedConcurrentExecutions).toBeUndefined();
    const stages = Object.values(t.findResources('AWS::ApiGatewayV2::Stage')) as Resource[];
    expect(stages).toHaveLength(1);
    expect(stages[0]!.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 2000 });
  });
});
