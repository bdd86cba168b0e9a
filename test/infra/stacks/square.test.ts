import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../../shared/config/index.js';
import type { Json } from '../../support/json.js';
import { synthesiseDevStageWith } from '../support/app.js';

/**
 * A stage with two Square sources, built and synthesised by the real app (cdk-nag included, which
 * throws on any unacknowledged finding): `square` leaves its notification URL to the stack,
 * `square-jp` states the public URL a proxy serves.
 */
let template: Template;
let dispose: () => void;
beforeAll(() => {
  ({ template, dispose } = synthesiseDevStageWith({
    square: {},
    'square-jp': { kind: 'square', notificationUrl: 'https://hooks.example.jp/square', externalKey: 'square_jp' },
  }));
});
afterAll(() => dispose());

type Resource = { Properties: Record<string, Json> };
const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];

/** SOURCES_CONFIG of receive-webhook, with the stack's tokens as CloudFormation gives them. */
function sourcesConfig(): Json {
  const receiver = resources('AWS::Lambda::Function').find((f) => String(f.Properties.Description).startsWith('Verifies'));
  return receiver?.Properties.Environment.Variables[ENV.SOURCES_CONFIG];
}

describe('Square sources in the stack', () => {
  it('routes POST /webhooks/<name> for each Square source', () => {
    const routes = resources('AWS::ApiGatewayV2::Route').map((r) => r.Properties.RouteKey);
    expect(routes).toEqual(expect.arrayContaining(['POST /webhooks/square', 'POST /webhooks/square-jp']));
  });

  it('creates an empty signature-key secret for each Square source', () => {
    const names = resources('AWS::SecretsManager::Secret').map((s) => s.Properties.Name);
    expect(names).toEqual(expect.arrayContaining(['loyalty-bridge/dev/webhook/square', 'loyalty-bridge/dev/webhook/square-jp']));
    for (const secret of resources('AWS::SecretsManager::Secret').filter((s) => String(s.Properties.Name).includes('square'))) {
      expect(secret.Properties.SecretString).toBe('{"secrets":[]}');
    }
  });

  it('keeps a stated notification URL as is', () => {
    const text = JSON.stringify(sourcesConfig());
    expect(text).toContain('https://hooks.example.jp/square');
  });

  it('sets the notification URL of a Square source without one to its own route on the HTTP API', () => {
    // A join of the API id and URL suffix: `https://<api>.execute-api.eu-west-1.<suffix>/webhooks/square`.
    const value = sourcesConfig();
    const parts = value['Fn::Join'][1] as unknown[];
    const text = parts.map((p) => (typeof p === 'string' ? p : '<token>')).join('');
    expect(text).toMatch(/"square":\{"notificationUrl":"https:\/\/<token>\.execute-api\.ap-northeast-1\.<token>\/webhooks\/square"\}/);
  });

  it('lets receive-webhook read both Square secrets', () => {
    const policies = resources('AWS::IAM::Policy').flatMap(
      (p) => p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[],
    );
    const reads = policies
      .filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))
      .map((s) => JSON.stringify(s.Resource));
    expect(reads.filter((r) => /WebhookSecretsquare/.test(r))).toHaveLength(2);
  });
});
