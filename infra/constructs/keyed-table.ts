import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/**
 * A table of items read and written by one string key, expiring by TTL: on demand, point-in-time
 * recovery, encrypted with the AWS managed KMS key (its use recorded by CloudTrail), or with a customer
 * managed key when the table holds personal data (its user grants itself the key). Production keeps
 * it come what may (deletion protection, retained on stack deletion); elsewhere a stage is disposable.
 * A grantee gets only the item actions the table's one user needs.
 */
export class KeyedTable extends Construct {
  readonly table: Table;
  private readonly actions: readonly string[];

  constructor(
    scope: Construct,
    id: string,
    props: {
      schema: { partitionKey: string; ttlAttribute: string };
      production: boolean;
      actions: readonly string[];
      encryptionKey?: IKey;
    },
  ) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: props.schema.partitionKey, type: AttributeType.STRING },
      timeToLiveAttribute: props.schema.ttlAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      ...(props.encryptionKey
        ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
        : { encryption: TableEncryption.AWS_MANAGED }),
      deletionProtection: props.production,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.actions = props.actions;
  }

  /** The table's item actions, nothing more. */
  protected grantActions(grantee: IGrantable): void {
    this.table.grant(grantee, ...this.actions);
  }
}
