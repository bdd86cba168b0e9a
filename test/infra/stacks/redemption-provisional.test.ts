import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../support/json.js';
import { synthesiseDevStageWith } from '../support/app.js';

/**
 * A redeeming Shopify source that earns at fulfilment (issue 53): its points page lists provisional
 * orders, so the App Proxy may read orders (GetItem only, `order#` keys) and query the customer index;
 * a source earning at payment gets neither (test/infra/stacks/redemption.test.ts).
 */
let template: Template;
let dispose: () => void;
beforeAll(() => {
  ({ template, dispose } = synthesiseDevStageWith(
    {
      shopify: {
        externalKey: 'shopify',
        apiVersion: '2026-10',
        earnAfter: 'fulfilled',
        redemption: { enabled: true, valuePerPoint: '1', minPoints: 100 },
      },
    },
    { reconcile: { shopify: { shopDomain: 'example-shop.myshopify.com' } } },
  ));
});
afterAll(() => dispose());

type Statement = { Action: unknown; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
const proxyStatements = () =>
  (Object.values(template.findResources('AWS::IAM::Policy')) as { Properties: Record<string, Json> }[])
    .filter((p) => /ShopifyAppProxy/.test(JSON.stringify(p.Properties.Roles)))
    .flatMap((p) => p.Properties.PolicyDocument as unknown as { Statement: Statement[] })
    .flatMap((d) => d.Statement);
const keysOf = (st: Statement) => [st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []].flat();

describe('the App Proxy of a source earning after payment', () => {
  it('reads orders only: GetItem on order# keys, never a write', () => {
    const onOrders = proxyStatements().filter((st) => keysOf(st).includes('order#*'));
    expect(onOrders.map((st) => [st.Action].flat())).toEqual([['dynamodb:GetItem']]);
  });

  it('queries the customer index by its exact ARN, nothing else of the table', () => {
    const queries = proxyStatements().filter((st) => [st.Action].flat().includes('dynamodb:Query'));
    expect(queries).toHaveLength(1);
    expect(JSON.stringify(queries[0]?.Resource)).toMatch(/\/index\//);
  });
});
