import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * Access to the activity record (shared/activity) in the ledger table, narrowed by key with
 * `dynamodb:LeadingKeys`: a function that only observes can neither read nor change a ledger record.
 */

/** The audit and the reconciliation: their run summaries, one item read and written over (GetItem, PutItem). */
export function grantRunRecord(table: ITable, grantee: IGrantable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['activity#runs'] } },
    }),
  );
}
