import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { LEDGER_TABLE_SCHEMA } from '../../shared/config/index.js';
import { keyedTable } from './keyed-table.js';

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
    // Losing the ledger loses the record of what was credited: production keeps it come what may.
    this.table = keyedTable(this, LEDGER_TABLE_SCHEMA, props);
  }

  grantItemAccess(grantee: IGrantable): void {
    this.table.grant(grantee, ...LEDGER_ITEM_ACTIONS);
  }
}
