import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMAREGI_ENV } from '../../../shared/sources/smaregi/index.js';
import type { Json } from '../../support/json.js';
import { synthesiseDevStageWith } from '../support/app.js';

/**
 * A redeeming Shopify source beside a Smaregi source whose till points are the membership balance: the
 * functions that deduct and give back web points mirror them to the till's record. The sweep reads the
 * Smaregi app's access to do so; the internet-facing App Proxy never does: it keeps its steps and queues
 * each mirror to the worker. Synthesised by the real app (cdk-nag included).
 */
let template: Template;
let dispose: () => void;
beforeAll(() => {
  ({ template, dispose } = synthesiseDevStageWith(
    {
      shopify: { externalKey: 'shopify', redemption: { enabled: true, valuePerPoint: '1', minPoints: 100 } },
      smaregi: { contractId: 'sb_abc123', hosts: 'sandbox', tillPoints: 'membership' },
    },
    { reconcile: { shopify: { shopDomain: 'example-shop.myshopify.com' } } },
  ));
}, 900_000);
afterAll(() => dispose());

type Resource = { Properties: Record<string, Json> };
type Statement = { Action: unknown; Resource?: Json; Condition?: Json };
const statementsOf = (role: RegExp): Statement[] =>
  (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
    .filter((p) => role.test(JSON.stringify(p.Properties.Roles)))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
const functions = () => Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
const described = (prefix: string) => functions().find((f) => String(f.Properties.Description).startsWith(prefix));
const envOf = (f: Resource | undefined) => (f?.Properties.Environment as { Variables?: Record<string, Json> } | undefined)?.Variables ?? {};

describe('web points mirrored to the tills (tillPoints membership)', () => {
  it('gives the redemption sweep the Smaregi access the worker has, and the App Proxy none', () => {
    const proxy = described('Links a logged-in Shopify customer');
    const sweep = described('Ends unused redemption discount codes');
    expect([SMAREGI_ENV in envOf(proxy), SMAREGI_ENV in envOf(sweep)]).toEqual([false, true]);
  });

  it('lets the App Proxy read no Smaregi secret: its policy names the Shopify, discounts and Open API secrets only', () => {
    const secrets = Object.keys(template.findResources('AWS::SecretsManager::Secret'));
    const smaregi = secrets.filter((id) => /Smaregi/.test(id));
    const read = (role: RegExp) =>
      statementsOf(role)
        .filter((st) => [st.Action].flat().some((a) => String(a).startsWith('secretsmanager:')))
        .flatMap((st) => secrets.filter((id) => JSON.stringify(st.Resource ?? '').includes(`"${id}"`)));
    expect([
      smaregi.length > 0,
      read(/ShopifyAppProxy/).filter((id) => /Smaregi/.test(id)),
      read(/RedemptionSweep/).some((id) => /Smaregi/.test(id)),
    ]).toEqual([true, [], true]);
  });

  it('lets both keep their mirror steps: till-mirror# keys only (dynamodb:LeadingKeys)', () => {
    for (const role of [/ShopifyAppProxy/, /RedemptionSweep/]) {
      const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
        .filter((p) => role.test(JSON.stringify(p.Properties.Roles)))
        .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: unknown; Condition?: Json }[] }).Statement);
      const mirror = statements.filter((st) => JSON.stringify(st.Condition ?? {}).includes('till-mirror#*'));
      expect(mirror.map((st) => [st.Action].flat().sort())).toEqual([['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']]);
    }
  });

  it('lets the nightly audit finish unfinished mirror steps: the Smaregi access, the sources and till-mirror# keys only', () => {
    const audit = described('Audits the ledger against the point histories');
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
      .filter((p) => /AuditLedger/.test(JSON.stringify(p.Properties.Roles)))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: unknown; Condition?: Json }[] }).Statement);
    const mirror = statements.filter((st) => JSON.stringify(st.Condition ?? {}).includes('till-mirror#*'));
    expect([SMAREGI_ENV in envOf(audit), 'SOURCES_CONFIG' in envOf(audit), mirror.map((st) => [st.Action].flat().sort())]).toEqual([
      true,
      true,
      [['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']],
    ]);
  });

  it('lets the nightly audit Query the ledger’s one index, by its ARN, to settle a mirror step in doubt by the member’s other records', () => {
    const queries = statementsOf(/AuditLedger/).filter((st) => [st.Action].flat().includes('dynamodb:Query'));
    expect(queries.map((st) => JSON.stringify(st.Resource ?? '').includes('/index/byUnlinkedCustomer'))).toEqual([true]);
  });
});
