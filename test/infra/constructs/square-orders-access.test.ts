import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../infra/build-app.js';
import { loadDeployment, parseStageConfig } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';
import { SQUARE_ORDERS_ENV } from '../../../shared/square-orders/index.js';
import type { Json } from '../../support/json.js';

/**
 * A stage whose Japanese Square source earns on its orders without tax, synthesised by the real app
 * (cdk-nag included): the worker, and only the worker, reads that source's Orders API token.
 */
let template: Template;
let outdir: string;
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'infra-square-orders-'));
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  const dev = JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'dev.json'), 'utf8'));
  const stage = parseStageConfig({
    ...dev,
    sources: {
      ...dev.sources,
      square: {},
      'square-jp': { kind: 'square', externalKey: 'square_jp', amount: { basis: 'subtotal_excluding_tax' } },
    },
  });
  const built = buildApp(app, loadDeployment(INFRA_DIR), { standalone: stage });
  app.synth();
  template = Template.fromStack(built.standalone!);
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

type Resource = { Properties: Record<string, Json> };
const resources = (type: string) => Object.entries(template.findResources(type)) as [string, Resource][];
const fn = (prefix: string) => resources('AWS::Lambda::Function').find(([, f]) => String(f.Properties.Description).startsWith(prefix))!;

describe("Square's Orders API access in the stack", () => {
  it('creates an empty token secret only for the source that earns on its orders without tax', () => {
    const names = resources('AWS::SecretsManager::Secret').map(([, s]) => String(s.Properties.Name));
    expect(names.filter((n) => n.includes('/square-orders/'))).toEqual(['loyalty-bridge/dev/square-orders/square-jp']);
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
