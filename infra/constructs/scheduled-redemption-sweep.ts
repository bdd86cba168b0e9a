import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { LEDGER_TABLE_SCHEMA } from '../../shared/config/index.js';
import { redeemingShopify, type StageConfig, sweepEnvironment } from '../config/index.js';
import { BundledFunction, type FunctionLogs } from './bundled-function.js';
import { grantLedgerKeys, grantUpstreamBudget } from './ledger-table.js';
import { FUNCTION_LEDGER_KEYS } from '../../shared/ledger/index.js';

/** How often unused codes past their end are looked for: their points come back within this of the end. */
export const SWEEP_EVERY_MINUTES = 5;

export type ScheduledRedemptionSweepProps = FunctionLogs & {
  config: StageConfig;
  table: ITable;
  openApiSecret: ISecret;
};

/**
 * sweep-redemptions on an EventBridge schedule (docs/redemption.md): unused discount codes past their
 * end are deactivated and their points given back. It reads and updates redemption records (by key,
 * and the open ones through the sparse index), reads the Open API and Admin API token secrets, and
 * nothing else: no PutItem (it creates no record), no Scan.
 */
export class ScheduledRedemptionSweep extends Construct {
  readonly function: BundledFunction;
  readonly rule: Rule;

  constructor(
    scope: Construct,
    id: string,
    props: ScheduledRedemptionSweepProps & { source: string; shopDomain: string; tokenSecretName: string; apiVersion?: string },
  ) {
    super(scope, id);
    const adminToken = Secret.fromSecretNameV2(this, 'AdminToken', props.tokenSecretName);
    this.function = new BundledFunction(this, 'Function', {
      code: 'sweepRedemptions',
      description: 'Ends unused redemption discount codes past their end and gives their points back',
      ...props.config.receiver,
      timeoutSeconds: 120,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(props.logsKey ? { logsKey: props.logsKey } : {}),
      environment: sweepEnvironment(props.config, {
        tableName: props.table.tableName,
        openApiSecretArn: props.openApiSecret.secretArn,
        shopDomain: props.shopDomain,
        tokenSecretArn: adminToken.secretArn,
        ...(props.apiVersion ? { apiVersion: props.apiVersion } : {}),
      }),
    });
    const indexArn = Stack.of(this).formatArn({
      service: 'dynamodb',
      resource: 'table',
      resourceName: `${props.table.tableName}/index/${LEDGER_TABLE_SCHEMA.unlinkedIndex.name}`,
    });
    // The redemption records only (dynamodb:LeadingKeys), and its Open API calls' budget counters.
    grantLedgerKeys(props.table, this.function.role, ['dynamodb:GetItem', 'dynamodb:UpdateItem'], FUNCTION_LEDGER_KEYS.sweepRedemptions);
    grantUpstreamBudget(props.table, this.function.role);
    this.function.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: [indexArn] }));
    props.openApiSecret.grantRead(this.function.role);
    adminToken.grantRead(this.function.role);
    this.rule = new Rule(this, 'Schedule', {
      description: `Sweeps the ${props.source} source's unused redemption codes`,
      schedule: Schedule.rate(Duration.minutes(SWEEP_EVERY_MINUTES)),
      targets: [
        new LambdaFunction(this.function.fn, {
          event: RuleTargetInput.fromObject({ source: props.source }),
          retryAttempts: 2,
          maxEventAge: Duration.minutes(SWEEP_EVERY_MINUTES),
        }),
      ],
    });
  }
}

/** The sweep of the stage's redeeming Shopify source, or undefined when none redeems. */
export function redemptionSweepFor(scope: Construct, props: ScheduledRedemptionSweepProps): ScheduledRedemptionSweep | undefined {
  const redeeming = redeemingShopify(props.config);
  return redeeming && new ScheduledRedemptionSweep(scope, 'RedemptionSweep', { ...props, ...redeeming });
}
