import { Stack } from 'aws-cdk-lib';
import { AttributeType, type ITable, ProjectionType } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { LEDGER_TABLE_SCHEMA } from '../../shared/config/index.js';
import { BUDGET_KEY_PREFIX, leadingKeyPatterns, REDACTION_DELETED_KEYS } from '../../shared/ledger/index.js';
import { KeyedTable } from './keyed-table.js';

/**
 * Item operations the worker's ledger uses: single conditional writes (a put creates a new order where none
 * is, an update changes one) and reads by key. It never deletes an order or refund: records expire by TTL.
 * No transactions, no table administration; one Query, on the byUnlinkedCustomer index only (privacy
 * requests add their own two rights: grantPrivacy).
 */
export const LEDGER_ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/**
 * What privacy requests add (shared/privacy): a Scan, for shop/redact's every record of a source and the
 * operator's list of requests, and DeleteItem on the records the ledger's redaction deletes only (customer
 * records, link marks, a redemption's old key: their keys hold the shop customer id; shared/ledger/redaction):
 * order and refund records are redacted in place, never deleted.
 */
export const LEDGER_PRIVACY_ACTIONS = ['dynamodb:Scan'] as const;
export const LEDGER_DELETABLE_KEYS = REDACTION_DELETED_KEYS.map((prefix) => `${prefix}*`);

/** What drawing from the upstream budget takes (shared/ledger/upstream-budget.ts): a conditional increment, a read of the counter. */
export const UPSTREAM_BUDGET_ACTIONS = ['dynamodb:UpdateItem', 'dynamodb:GetItem'] as const;

/**
 * The upstream budget's counters for a function that has no other business in the ledger table: its
 * two item actions, on the `budget#` keys only (dynamodb:LeadingKeys).
 */
export function grantUpstreamBudget(table: ITable, grantee: IGrantable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...UPSTREAM_BUDGET_ACTIONS],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${BUDGET_KEY_PREFIX}*`] } },
    }),
  );
}

/**
 * Item actions on the ledger table's keys with these prefixes only (`dynamodb:LeadingKeys`): a
 * function's own records (shared/ledger FUNCTION_LEDGER_KEYS), never another's.
 */
export function grantLedgerKeys(table: ITable, grantee: IGrantable, actions: readonly string[], prefixes: readonly string[]): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...actions],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeyPatterns(prefixes) } },
    }),
  );
}

/** Query on the ledger's one index (customers' unlinked orders, provisional orders' due entries), by its exact ARN. */
export function grantCustomerIndexQuery(table: ITable, grantee: IGrantable): void {
  const indexArn = Stack.of(table).formatArn({
    service: 'dynamodb',
    resource: 'table',
    resourceName: `${table.tableName}/index/${LEDGER_TABLE_SCHEMA.unlinkedIndex.name}`,
  });
  grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: [indexArn] }));
}

/** The exactly-once ledger. Losing it loses the record of what was credited: production keeps it come what may. */
export class LedgerTable extends KeyedTable {
  constructor(scope: Construct, id: string, props: { production: boolean }) {
    super(scope, id, { schema: LEDGER_TABLE_SCHEMA, production: props.production, actions: LEDGER_ITEM_ACTIONS });
    const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
    // Sparse: only orders that ended customer_not_found carry its keys. Keys only: the worker reads each order itself.
    this.table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.KEYS_ONLY,
    });
  }

  /**
   * The item actions on the table itself, on the keys with these prefixes only (`dynamodb:LeadingKeys`:
   * shared/ledger FUNCTION_LEDGER_KEYS), and Query on the one index by its exact ARN, unconditioned: the
   * index's partition key is a source customer, not a ledger key, so LeadingKeys cannot narrow it by the
   * table's prefixes; a Query reads keys only (KEYS_ONLY projection), each item then read by key under the
   * item grant. The table's own grant would add `index/*` to every action once it has an index.
   */
  grantItemAccess(grantee: IGrantable, prefixes: readonly string[]): void {
    grantLedgerKeys(this.table, grantee, LEDGER_ITEM_ACTIONS, prefixes);
    grantCustomerIndexQuery(this.table, grantee);
  }

  /** The privacy requests' extra rights: Scan on the table, DeleteItem on the keys a redaction deletes only. */
  grantPrivacy(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...LEDGER_PRIVACY_ACTIONS], resources: [this.table.tableArn] }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:DeleteItem'],
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...LEDGER_DELETABLE_KEYS] } },
      }),
    );
  }
}
