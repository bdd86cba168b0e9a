import { Duration } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Function as LambdaFn } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { EARN_TICK } from '../../shared/worker/index.js';

/**
 * Provisional points earned `days` after payment (issue 53): a schedule runs the worker's ticker every
 * minute (shared/worker/earn-due.ts), which credits the orders whose day has come. No permission more:
 * the worker already reads the ledger's index and makes the points calls; the rule may only invoke it.
 * Only in a stage with a source configured `earnAfter: {"days": N}` or `"fulfilled"` (its refunds before the moment).
 */
export class EarnSchedule extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: { worker: LambdaFn }) {
    super(scope, id);
    this.rule = new Rule(this, 'Schedule', {
      description: 'Credits provisional points whose day has come (sources with earnAfter days), and the refunds before a fulfilment',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(props.worker, {
          event: RuleTargetInput.fromObject(EARN_TICK),
          // The next minute finds what this one missed: no retry needed.
          retryAttempts: 0,
          maxEventAge: Duration.minutes(1),
        }),
      ],
    });
  }
}

/**
 * Whether some source of the stage earns its points after payment: a number of days after it, or at
 * fulfilment (the ticker then finishes the refunds before the moment that the fulfilment's message left,
 * shared/points/before-earn.ts `dueForWaitingRefunds`).
 */
export const earnsLater = (sources: Readonly<Record<string, unknown>>): boolean =>
  Object.values(sources).some((s) => {
    const after = typeof s === 'object' && s !== null ? (s as { earnAfter?: unknown }).earnAfter : undefined;
    return (typeof after === 'object' && after !== null) || after === 'fulfilled';
  });
