import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';

/**
 * A table of items read and written by one string key, expiring by TTL: on demand, point-in-time
 * recovery, encrypted with the AWS managed KMS key (its use recorded by CloudTrail). Production keeps
 * it come what may (deletion protection, retained on stack deletion); elsewhere a stage is disposable.
 */
export function keyedTable(scope: Construct, schema: { partitionKey: string; ttlAttribute: string }, props: { production: boolean }): Table {
  return new Table(scope, 'Table', {
    partitionKey: { name: schema.partitionKey, type: AttributeType.STRING },
    timeToLiveAttribute: schema.ttlAttribute,
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: TableEncryption.AWS_MANAGED,
    deletionProtection: props.production,
    removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}
