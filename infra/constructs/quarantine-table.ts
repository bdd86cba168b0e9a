import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { QUARANTINE_TABLE_SCHEMA } from '../../shared/quarantine/index.js';
import { KeyedTable } from './keyed-table.js';

/** receive-webhook only ever writes one item by key (an upsert); it never reads, scans or deletes. */
export const QUARANTINE_WRITE_ACTIONS = ['dynamodb:UpdateItem'] as const;

/**
 * Authentic deliveries intake could not read, kept verbatim for `npm run quarantine -- replay`. Outlives
 * the queue (14 days at most): entries expire by TTL (QUARANTINE_TTL_DAYS, default 90) and production
 * retains the table. On demand, point-in-time recovery, encrypted.
 */
export class QuarantineTable extends KeyedTable {
  constructor(scope: Construct, id: string, props: { production: boolean }) {
    super(scope, id, { schema: QUARANTINE_TABLE_SCHEMA, production: props.production, actions: QUARANTINE_WRITE_ACTIONS });
  }

  grantKeep(grantee: IGrantable): void {
    this.grantActions(grantee);
  }
}
