import { Duration, Stack } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { type IRole, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFn } from 'aws-cdk-lib/aws-lambda';
import type { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/index.js';
import { pullMappingParameterName, RECOVERY_TICK } from '../../shared/consumer/index.js';

/**
 * The worker stops pulling while the Open API is down and starts again when it answers
 * (shared/consumer/pull.ts, recovery.ts): it disables and enables its own SQS event source mapping, and
 * a schedule runs its recovery probe every minute (each run probes every few seconds while paused).
 *
 * The mapping's id reaches the worker through an SSM parameter with a fixed name, and the permissions
 * sit in a policy of their own (not the role's default policy): the function must depend on neither,
 * since both name the mapping, which depends on the function. Every grant is on one resource.
 */
export class PullRecovery extends Construct {
  readonly rule: Rule;
  readonly policy: Policy;
  readonly parameter: StringParameter;

  constructor(scope: Construct, id: string, props: { stageName: string; worker: LambdaFn; role: IRole; source: SqsEventSource }) {
    super(scope, id);
    const parameterName = pullMappingParameterName(props.stageName);
    this.parameter = new StringParameter(this, 'MappingId', {
      parameterName,
      description: 'The id of the process-events SQS event source mapping (the worker pauses it during Open API outages)',
      stringValue: props.source.eventSourceMappingId,
    });
    props.worker.addEnvironment(ENV.PULL_MAPPING_PARAMETER, parameterName);
    const stack = Stack.of(this);
    this.policy = new Policy(this, 'PausePolicy', {
      roles: [props.role],
      statements: [
        new PolicyStatement({
          actions: ['ssm:GetParameter'],
          resources: [stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: parameterName.slice(1) })],
        }),
        new PolicyStatement({
          actions: ['lambda:GetEventSourceMapping', 'lambda:UpdateEventSourceMapping'],
          resources: [props.source.eventSourceMappingArn],
        }),
      ],
    });
    this.rule = new Rule(this, 'Schedule', {
      description: 'Runs the worker recovery probe: resumes pulling once the Open API answers again',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(props.worker, {
          event: RuleTargetInput.fromObject(RECOVERY_TICK),
          // The next minute probes again: a missed run needs no retry.
          retryAttempts: 0,
          maxEventAge: Duration.minutes(1),
        }),
      ],
    });
  }
}
