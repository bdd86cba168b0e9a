import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EARN_TICK } from '../../../shared/worker/index.js';
import type { Json } from '../../support/json.js';
import { synthesiseDevStageWith } from '../support/app.js';

/** A stage whose Shopify source earns 14 days after payment, synthesised by the real app (cdk-nag included). */
let template: Template;
let dispose: () => void;
beforeAll(() => {
  ({ template, dispose } = synthesiseDevStageWith({ shopify: { externalKey: 'shopify', earnAfter: { days: 14 } } }));
}, 300_000);
afterAll(() => dispose());

type Resource = { Properties: Record<string, Json> };
const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];
const earnRules = () => resources('AWS::Events::Rule').filter((r) => /provisional/.test(String(r.Properties.Description)));

describe('provisional points earned days after payment, in the stack', () => {
  it('runs the worker on the days ticker every minute', () => {
    const rules = earnRules();
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties.ScheduleExpression).toBe('rate(1 minute)');
    const [target] = (rules[0]?.Properties.Targets ?? []) as { Arn: { 'Fn::GetAtt': string[] }; Input: string }[];
    expect(JSON.parse(target?.Input ?? '')).toEqual(EARN_TICK);
    const [worker] = Object.entries(template.findResources('AWS::Lambda::Function')).find(([, f]) =>
      String((f as Resource).Properties.Description).startsWith('Credits'),
    ) ?? [''];
    expect(target?.Arn).toEqual({ 'Fn::GetAtt': [worker, 'Arn'] });
  });

  it('lets only EventBridge rules of the stack invoke the worker for it (no new role or policy)', () => {
    const permissions = resources('AWS::Lambda::Permission').filter((p) => p.Properties.Principal === 'events.amazonaws.com');
    expect(permissions.length).toBeGreaterThan(0);
    for (const p of permissions) expect(p.Properties.Action).toBe('lambda:InvokeFunction');
  });
});
