import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/**
 * The stage's key for its CloudWatch log groups (the functions' logs carry customer ids; the API's
 * access logs carry caller addresses). CloudWatch Logs may use it only for log groups of this
 * account and region (the encryption context names the log group).
 */
export class LogsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    const stack = Stack.of(this);
    this.key = new Key(this, 'Key', {
      description: 'Encrypts the loyalty bridge log groups',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      pendingWindow: Duration.days(30),
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsLogGroups',
        principals: [new ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
        actions: [
          'kms:Encrypt',
          'kms:Decrypt',
          'kms:ReEncryptFrom',
          'kms:ReEncryptTo',
          'kms:GenerateDataKey',
          'kms:GenerateDataKeyWithoutPlaintext',
          'kms:DescribeKey',
        ],
        resources: ['*'],
        conditions: {
          ArnLike: { 'kms:EncryptionContext:aws:logs:arn': `arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:*` },
        },
      }),
    );
  }
}
