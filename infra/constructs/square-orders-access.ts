import { type RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { secretPrefix } from '../config/derived.js';
import type { StageConfig } from '../config/schema.js';

/**
 * Square sources that earn on their orders without tax (`amount.basis: subtotal_excluding_tax`) read
 * each payment's order with Square's Orders API: one token secret per such source, created holding an
 * empty token (the operator puts the real one in; docs/square.md), read by the worker only.
 */
export function squareOrderSources(stage: StageConfig): string[] {
  return (
    Object.entries(stage.sources)
      // A source's kind defaults to its name (`square` needs no `kind`), as the functions read the config.
      .filter(
        ([name, s]) => (s.kind ?? name) === 'square' && (s.amount as { basis?: unknown } | undefined)?.basis === 'subtotal_excluding_tax',
      )
      .map(([name]) => name)
  );
}

export function squareOrdersTokenSecretName(stage: StageConfig, source: string): string {
  return `${secretPrefix(stage)}/square-orders/${source}`;
}

export class SquareOrdersAccessSecrets extends Construct {
  readonly secrets: Record<string, Secret>;

  constructor(scope: Construct, id: string, props: { config: StageConfig; removalPolicy: RemovalPolicy; reader: IGrantable }) {
    super(scope, id);
    this.secrets = Object.fromEntries(
      squareOrderSources(props.config).map((source) => {
        const secret = new Secret(this, `Token-${source}`, {
          secretName: squareOrdersTokenSecretName(props.config, source),
          description: `Square access token of ${source} with ORDERS_READ: {"access_token": "EAAA..."}`,
          secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ access_token: '' })),
          removalPolicy: props.removalPolicy,
        });
        Validations.of(secret).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason: 'Square issues the access token (Developer Console or OAuth); a rotation Lambda cannot reissue it there.',
        });
        secret.grantRead(props.reader);
        return [source, secret];
      }),
    );
  }

  /** SQUARE_ORDERS for the worker: each source's token secret. */
  environmentValue(): Record<string, { accessTokenSecretArn: string }> {
    return Object.fromEntries(Object.entries(this.secrets).map(([s, secret]) => [s, { accessTokenSecretArn: secret.secretArn }]));
  }
}
