import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { LEDGER_TABLE_SCHEMA } from '../../shared/config/index.js';
import { KeyedTable } from './keyed-table.js';

/**
 * Item operations the worker's ledger uses: single conditional writes (a put creates or replaces a whole
 * order, an update changes one) and reads by key. It never deletes: records expire by TTL. No Scan, no
 * Query (no sort key), no transactions, no table administration.
 */
export const LEDGER_ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/** The exactly-once ledger. Losing it loses the record of what was credited: production keeps it come what may. */
export class LedgerTable extends KeyedTable {
  constructor(scope: Construct, id: string, props: { production: boolean }) {
    super(scope, id, { schema: LEDGER_TABLE_SCHEMA, production: props.production, actions: LEDGER_ITEM_ACTIONS });
  }

  grantItemAccess(grantee: IGrantable): void {
    this.grantActions(grantee);
  }
}
