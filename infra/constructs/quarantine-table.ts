import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { QUARANTINE_TABLE_SCHEMA } from '../../shared/quarantine/index.js';
import { KeyedTable } from './keyed-table.js';

/** receive-webhook only ever writes one item by key (creates it, or counts a re-delivery); it never reads, scans or deletes. */
export const QUARANTINE_WRITE_ACTIONS = ['dynamodb:UpdateItem'] as const;

/** The worker acts on privacy requests: lists entries, reads a body to search it, removes it. Never deletes an entry. */
export const QUARANTINE_REDACT_ACTIONS = ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/** What DynamoDB needs of the caller's rights on a table's customer managed key to write an item. */
export const QUARANTINE_KEY_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'] as const;

/**
 * Authentic deliveries intake could not read, kept verbatim for `npm run quarantine -- replay`. Outlives
 * the queue (14 days at most): entries expire by TTL (QUARANTINE_TTL_DAYS, default 90) and production
 * retains the table. On demand, point-in-time recovery. Whole Shopify orders are personal data (names,
 * addresses, e-mail; APPI): the table has a customer managed key of its own, rotated yearly, so who may
 * read it is the key's policy and the IAM policies that name it, every use is in CloudTrail, and
 * disabling the key withdraws the data at once.
 */
export class QuarantineTable extends KeyedTable {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: { production: boolean }) {
    const key = new Key(scope, `${id}Key`, {
      description: 'Encrypts the loyalty bridge quarantine table (authentic deliveries intake could not read)',
      enableKeyRotation: true,
      pendingWindow: Duration.days(30),
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      schema: QUARANTINE_TABLE_SCHEMA,
      production: props.production,
      actions: QUARANTINE_WRITE_ACTIONS,
      encryptionKey: key,
    });
    this.key = key;
  }

  grantKeep(grantee: IGrantable): void {
    this.grantActions(grantee);
    this.grantKey(grantee);
  }

  /** The worker's rights for privacy requests (shared/privacy): find the entries, remove their bodies. */
  grantRedact(grantee: IGrantable): void {
    this.table.grant(grantee, ...QUARANTINE_REDACT_ACTIONS);
    this.grantKey(grantee);
  }

  private grantKey(grantee: IGrantable): void {
    // The key only through DynamoDB in this region: the role cannot decrypt anything with it directly.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...QUARANTINE_KEY_ACTIONS],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Stack.of(this).region}.amazonaws.com` } },
      }),
    );
  }
}
