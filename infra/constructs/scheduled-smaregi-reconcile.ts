import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SMAREGI_ENV } from '../../shared/sources/smaregi/index.js';
import type { StageConfig } from '../config/schema.js';
import type { BundledFunction, FunctionLogs } from './bundled-function.js';
import { reconcileFunction } from './scheduled-reconcile.js';
import { type SmaregiAccessSecrets, smaregiSources } from './smaregi-access.js';

/**
 * Smaregi's missed webhooks, on a schedule: one function, one EventBridge rule per Smaregi source
 * (every `reconcile.everyMinutes`, input {"source": name}). The function may read ledger items, send to
 * the queue and read the Smaregi app secrets; nothing else.
 */
export class ScheduledSmaregiReconcile extends Construct {
  readonly function: BundledFunction;
  readonly rules: Record<string, Rule>;

  constructor(
    scope: Construct,
    id: string,
    props: FunctionLogs & { config: StageConfig; table: ITable; queue: IQueue; access: SmaregiAccessSecrets; accessJson: string },
  ) {
    super(scope, id);
    const { config } = props;
    this.function = reconcileFunction(this, 'ReconcileSmaregi', props, {
      code: 'reconcileSmaregi',
      description: 'Queues Smaregi transactions whose webhooks never came (scheduled reconciliation)',
      environment: { [SMAREGI_ENV]: props.accessJson },
    });
    props.access.grantRead(this.function.role);
    this.rules = Object.fromEntries(
      smaregiSources(config).map(({ name, reconcile }) => [
        name,
        new Rule(this, `Schedule-${name}`, {
          description: `Reconcile ${name} with Smaregi every ${reconcile.everyMinutes} minutes over the last ${reconcile.lookbackHours} hours`,
          schedule: Schedule.rate(Duration.minutes(reconcile.everyMinutes)),
          targets: [
            new LambdaFunction(this.function.fn, {
              event: RuleTargetInput.fromObject({ source: name }),
              retryAttempts: 2,
              maxEventAge: Duration.minutes(Math.min(reconcile.everyMinutes, 60)),
            }),
          ],
        }),
      ]),
    );
  }
}
