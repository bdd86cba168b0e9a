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

  it('is out of the worker role', () => {
    const t = template('staging');
    const [tableId] = quarantineTable(t);
    const worker = Object.values(
      t.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Credits') } }),
    )[0] as Resource;
    const roleId = worker.Properties.Role['Fn::GetAtt'][0] as string;
    expect(JSON.stringify(statementsOfRole(t, roleId))).not.toContain(tableId);
  });

  it('alarms on the first quarantined delivery', () => {
    const alarms = Object.values(
      template('staging').findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: METRIC.quarantinedDeliveries } }),
    ) as Resource[];
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.Properties).toMatchObject({ Threshold: 1, Statistic: 'Sum', ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(alarms[0]!.Properties.AlarmActions).toHaveLength(1);
  });
});
