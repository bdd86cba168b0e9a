import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQUARE_ORDERS_ENV } from '../../../shared/sources/square/index.js';
import type { Json } from '../../support/json.js';
import { synthesiseDevStageWith } from '../support/app.js';

/**
 * A stage whose Japanese Square source earns on its orders without tax, synthesised by the real app
 * (cdk-nag included): the worker, and only the worker, reads that source's Orders API token.
 */
let template: Template;
let dispose: () => void;
beforeAll(() => {
  ({ template, dispose } = synthesiseDevStageWith({
    // `square` without `kind`: its kind is its name, as the functions read it.
    square: { amount: { basis: 'subtotal_excluding_tax' } },
    'square-jp': { kind: 'square', externalKey: 'square_jp', amount: { basis: 'subtotal_excluding_tax' } },
    'square-us': { kind: 'square', externalKey: 'square_us' },
  }));
});
afterAll(() => dispose());

type Resource = { Properties: Record<string, Json> };
const resources = (type: string) => Object.entries(template.findResources(type)) as [string, Resource][];
const fn = (prefix: string) => resources('AWS::Lambda::Function').find(([, f]) => String(f.Properties.Description).startsWith(prefix))!;

describe("Square's Orders API access in the stack", () => {
  it('creates an empty token secret only for the sources that earn on their orders without tax, with or without kind', () => {
    const names = resources('AWS::SecretsManager::Secret').map(([, s]) => String(s.Properties.Name));
    expect(names.filter((n) => n.includes('/square-orders/')).sort()).toEqual([
      'loyalty-bridge/dev/square-orders/square',
      'loyalty-bridge/dev/square-orders/square-jp',
    ]);
  });

  it("tells the worker where that source's token is", () => {
    const [, worker] = fn('Credits and debits');
    const value = JSON.stringify(worker.Properties.Environment.Variables[SQUARE_ORDERS_ENV]);
    expect(value).toContain('square-jp');
    expect(value).toContain('accessTokenSecretArn');
  });

  it('lets the worker read the token, and not the webhook receiver', () => {
    const [secretId] = resources('AWS::SecretsManager::Secret').find(([, s]) => String(s.Properties.Name).includes('/square-orders/'))!;
    const policies = resources('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes(secretId));
    const roles = policies.flatMap(([, p]) => (p.Properties.Roles as Json[]).map((r) => JSON.stringify(r)));
    expect(roles.some((r) => r.includes('ProcessEvents'))).toBe(true);
    expect(roles.some((r) => r.includes('ReceiveWebhook'))).toBe(false);
  });
});
