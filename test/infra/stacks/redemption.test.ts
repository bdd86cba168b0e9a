import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { INFRA_DIR } from '../../../infra/paths.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStageConfig } from '../../../infra/config/index.js';
import { FUNCTION_LEDGER_KEYS } from '../../../shared/ledger/index.js';
import type { Json } from '../../support/json.js';
import { synthesiseDevStageWith } from '../support/app.js';

/** A stage whose Shopify source redeems, synthesised by the real app (cdk-nag included: it throws on any unacknowledged finding). */
let template: Template;
let dispose: () => void;
beforeAll(() => {
  ({ template, dispose } = synthesiseDevStageWith(
    { shopify: { externalKey: 'shopify', apiVersion: '2026-10', redemption: { enabled: true, valuePerPoint: '1', minPoints: 100 } } },
    { reconcile: { shopify: { shopDomain: 'example-shop.myshopify.com' } } },
  ));
});
afterAll(() => dispose());

type Resource = { Properties: Record<string, Json> };
const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];
const fn = (prefix: string) => resources('AWS::Lambda::Function').find((f) => String(f.Properties.Description).startsWith(prefix));
const actionsOf = (rolePattern: RegExp) =>
  resources('AWS::IAM::Policy')
    .filter((p) => rolePattern.test(JSON.stringify(p.Properties.Roles)))
    .flatMap((p) => (p.Properties.PolicyDocument.Statement as { Action: unknown }[]).flatMap((s) => [s.Action].flat()));

describe('a redeeming Shopify source in the stack', () => {
  it('routes the points page, redeem, and GET on redeem (answered 405 by the function)', () => {
    const routes = resources('AWS::ApiGatewayV2::Route').map((r) => r.Properties.RouteKey);
    expect(routes).toEqual(
      expect.arrayContaining(['GET /proxy/shopify/points', 'POST /proxy/shopify/redeem', 'GET /proxy/shopify/redeem']),
    );
  });

  it('runs the sweep on an EventBridge schedule for the shopify source', () => {
    const rules = resources('AWS::Events::Rule').filter((r) => /redemption/.test(String(r.Properties.Description)));
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties.ScheduleExpression).toBe('rate(5 minutes)');
    expect(JSON.stringify(rules[0]?.Properties.Targets)).toContain('{\\"source\\":\\"shopify\\"}');
  });

  it('lets the sweep read and update records and query the index, never put, scan or delete', () => {
    const actions = actionsOf(/RedemptionSweep/).filter((a) => String(a).startsWith('dynamodb:'));
    expect(new Set(actions)).toEqual(new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query']));
  });

  it('gives the App Proxy its redemption records and the Admin API token by ARN, never a token', () => {
    const env = fn('Links a logged-in')?.Properties.Environment.Variables as Record<string, Json>;
    const admin = JSON.stringify(env.REDEMPTION_SHOPIFY_ADMIN);
    expect([admin.includes('example-shop.myshopify.com'), admin.includes('accessTokenSecretArn'), 'LEDGER_TABLE' in env]).toEqual([
      true,
      true,
      true,
    ]);
    const actions = actionsOf(/ShopifyAppProxy/).filter((a) => String(a).startsWith('dynamodb:'));
    expect(new Set(actions)).toEqual(new Set(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']));
  });
});

type Statement = { Action: unknown; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
/** A role's DynamoDB item statements (not Query/Scan, which LeadingKeys cannot narrow). */
const itemStatements = (rolePattern: RegExp) =>
  resources('AWS::IAM::Policy')
    .filter((p) => rolePattern.test(JSON.stringify(p.Properties.Roles)))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
    .filter((st) => [st.Action].flat().some((a) => /^dynamodb:(Get|Put|Update|Delete)Item$/.test(String(a))));
const leadingKeys = (st: Statement) => [st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []].flat();
const patterns = (prefixes: readonly string[]) => prefixes.map((p) => `${p}*`);

describe("the App Proxy's Admin API token", () => {
  const proxyPolicies = () =>
    JSON.stringify(resources('AWS::IAM::Policy').filter((p) => /ShopifyAppProxy/.test(JSON.stringify(p.Properties.Roles))));

  it('is a secret of its own, created empty, named for its discount scopes', () => {
    const secret = resources('AWS::SecretsManager::Secret').find((r) => String(r.Properties.Name).endsWith('/shopify-discounts/shopify'));
    expect(secret?.Properties.Description).toMatch(/write_discounts, read_discounts only/);
    expect(proxyPolicies()).toMatch(/DiscountsToken/);
  });

  it("speaks the source's API version (2025-10 or later: the stage file refuses older)", () => {
    const env = fn('Links a logged-in')?.Properties.Environment.Variables as Record<string, Json>;
    expect(JSON.stringify(env.REDEMPTION_SHOPIFY_ADMIN)).toMatch(/apiVersion\\":\\"2026-10/);
  });

  it("is never the reconciliation's read_orders token", () => {
    expect(proxyPolicies()).not.toMatch(/shopify-admin|AdminToken/);
    const env = fn('Links a logged-in')?.Properties.Environment.Variables as Record<string, Json>;
    expect(JSON.stringify(env.REDEMPTION_SHOPIFY_ADMIN)).toMatch(/DiscountsToken/);
  });
});

describe('each function touches its own ledger keys only (dynamodb:LeadingKeys)', () => {
  it.each([
    ['shopify-app-proxy', /ShopifyAppProxy/, [...FUNCTION_LEDGER_KEYS.shopifyAppProxy, 'budget#']],
    ['sweep-redemptions', /RedemptionSweep/, [...FUNCTION_LEDGER_KEYS.sweepRedemptions, 'budget#']],
    ['reconcile-shopify', /ReconcileShopify/, [...FUNCTION_LEDGER_KEYS.reconcile]],
  ])('%s: every item statement names its keys, and together exactly its prefixes', (_name, role, prefixes) => {
    const statements = itemStatements(role);
    expect(statements.length).toBeGreaterThan(0);
    // The run record is one exact key (StringEquals): every other statement carries StringLike prefixes.
    const unconditioned = statements.filter((st) => st.Condition === undefined);
    expect(unconditioned).toEqual([]);
    const granted = new Set(statements.flatMap(leadingKeys));
    expect(granted).toEqual(new Set(patterns(prefixes)));
  });

  it('gives the App Proxy no order, refund or customer key, and the sweep none either', () => {
    for (const role of [/ShopifyAppProxy/, /RedemptionSweep/]) {
      const keys = itemStatements(role).flatMap(leadingKeys).join(' ');
      expect(keys).not.toMatch(/(^| )(order|refund|customer|linked)#/);
    }
  });
});

describe('the worker of a redeeming stage', () => {
  it('reads the sources, so orders using a code mark it used and refunds give points back', () => {
    const env = fn('Credits')?.Properties.Environment.Variables as Record<string, Json>;
    expect(JSON.parse(String(env.SOURCES_CONFIG))).toMatchObject({ shopify: { redemption: { enabled: true } } });
  });
});

describe('the stage file', () => {
  it('refuses a redeeming Shopify source without the Admin API (reconcile) by name', () => {
    const dev = JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'dev.json'), 'utf8')) as Record<string, Json>;
    const stage = { ...dev, sources: { shopify: { redemption: { enabled: true } } } };
    expect(() => parseStageConfig(stage)).toThrow(/sources\.shopify\.redemption: .*reconcile\.shopify/);
  });

  it('refuses a redeeming Shopify source on an API version older than 2025-10 (its codes need `context`), saying so', () => {
    const dev = JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'dev.json'), 'utf8')) as Record<string, Json>;
    const stage = {
      ...dev,
      sources: { shopify: { apiVersion: '2025-07', redemption: { enabled: true } } },
      reconcile: { shopify: { shopDomain: 'example-shop.myshopify.com' } },
    };
    expect(() => parseStageConfig(stage)).toThrow(/apiVersion 2025-07 is older than 2025-10: .*context/);
    const sameNotRedeeming = { ...stage, sources: { shopify: { apiVersion: '2025-07' } } };
    expect(() => parseStageConfig(sameNotRedeeming)).not.toThrow();
  });
});
