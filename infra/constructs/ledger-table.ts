import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { LEDGER_TABLE_SCHEMA } from '../../shared/config/index.js';

/**
 * Item operations the worker's ledger uses: single conditional writes and reads by key. No Scan, no
 * Query (no sort key), no transactions, no table administration.
 */
export const LEDGER_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

/** The exactly-once ledger: on demand, point-in-time recovery, encrypted, TTL on `ttl`. */
export class LedgerTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: { production: boolean }) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: LEDGER_TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      timeToLiveAttribute: LEDGER_TABLE_SCHEMA.ttlAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // AWS managed KMS key: encrypted at rest with a key whose use CloudTrail records.
      encryption: TableEncryption.AWS_MANAGED,
      // Losing the ledger loses the record of what was credited: production keeps it come what may.
      deletionProtection: props.production,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }

  grantItemAccess(grantee: IGrantable): void {
    this.table.grant(grantee, ...LEDGER_ITEM_ACTIONS);
  }
}
