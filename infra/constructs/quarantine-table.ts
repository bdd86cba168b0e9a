import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { QUARANTINE_TABLE_SCHEMA } from '../../shared/quarantine/entry.js';

/** receive-webhook only ever writes one item by key (an upsert); it never reads, scans or deletes. */
export const QUARANTINE_WRITE_ACTIONS = ['dynamodb:UpdateItem'] as const;

/**
 * Authentic deliveries intake could not read, kept verbatim for `npm run quarantine -- replay`. Outlives
 * the queue (14 days at most): entries expire by TTL (QUARANTINE_TTL_DAYS, default 90) and production
 * retains the table. On demand, point-in-time recovery, encrypted.
 */
export class QuarantineTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: { production: boolean }) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: QUARANTINE_TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      timeToLiveAttribute: QUARANTINE_TABLE_SCHEMA.ttlAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: props.production,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }

  grantKeep(grantee: IGrantable): void {
    this.table.grant(grantee, ...QUARANTINE_WRITE_ACTIONS);
  }
}
