import { type RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { SmaregiAccess as SmaregiAccessValue } from '../../shared/sources/smaregi/index.js';
import { smaregiCredentialsSecretName } from '../config/derived.js';
import type { StageConfig } from '../config/schema.js';

/** A stage's Smaregi sources with what the stack needs of their settings. */
export function smaregiSources(
  stage: StageConfig,
): { name: string; contractId: string; hosts: 'production' | 'sandbox'; reconcile: SmaregiReconcileSchedule }[] {
  return Object.entries(stage.sources)
    .filter(([name, s]) => (s.kind ?? name) === 'smaregi')
    .map(([name, s]) => {
      const settings = s as { contractId?: unknown; hosts?: unknown; reconcile?: Partial<SmaregiReconcileSchedule> };
      return {
        name,
        contractId: String(settings.contractId),
        hosts: settings.hosts === 'sandbox' ? 'sandbox' : 'production',
        reconcile: { everyMinutes: 60, lookbackHours: 26, settleMinutes: 10, ...settings.reconcile },
      };
    });
}

export interface SmaregiReconcileSchedule {
  everyMinutes: number;
  lookbackHours: number;
  settleMinutes: number;
}

export { smaregiCredentialsSecretName };

/**
 * The Smaregi app's client id and secret per Smaregi source (client credentials for the Platform API):
 * one secret each, created holding empty values (the operator puts the app's in; docs/deploy.md), read
 * by the functions given to `grantRead` only (the worker and the scheduled reconcile).
 */
export class SmaregiAccessSecrets extends Construct {
  readonly secrets: Record<string, Secret>;
  private readonly config: StageConfig;

  constructor(scope: Construct, id: string, props: { config: StageConfig; removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.config = props.config;
    this.secrets = Object.fromEntries(
      smaregiSources(props.config).map(({ name }) => {
        const secret = new Secret(this, `App-${name}`, {
          secretName: smaregiCredentialsSecretName(props.config, name),
          description: `Smaregi app of ${name} (scopes pos.transactions:read pos.customers:read, and pos.customers:write under tillPoints membership): {"client_id": "...", "client_secret": "..."}`,
          secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ client_id: '', client_secret: '' })),
          removalPolicy: props.removalPolicy,
        });
        Validations.of(secret).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason: "Smaregi issues the app's client secret in its developer console; a rotation Lambda cannot reissue it there.",
        });
        return [name, secret];
      }),
    );
  }

  grantRead(grantee: IGrantable): void {
    for (const secret of Object.values(this.secrets)) secret.grantRead(grantee);
  }

  /** SMAREGI for the worker and the reconcile: each source's contract, hosts and credentials secret. */
  environmentValue(): SmaregiAccessValue {
    return Object.fromEntries(
      smaregiSources(this.config).map((s) => [
        s.name,
        { contractId: s.contractId, hosts: s.hosts, credentialsSecretArn: (this.secrets[s.name] as Secret).secretArn },
      ]),
    );
  }
}
