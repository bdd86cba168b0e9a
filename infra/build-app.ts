import type { App } from 'aws-cdk-lib';
import type { Deployment, StageConfig } from './config/index.js';
import { applyChecks } from './nag.js';
import { IntegrationStack, integrationStackName } from './stacks/integration-stack.js';
import { PipelineStack } from './stacks/pipeline-stack.js';

export const PIPELINE_STACK_ID = 'LoyaltyBridgePipeline';

export type BuiltApp = {
  pipeline: PipelineStack;
  /** A stage deployed directly with `cdk deploy -c stage=<name>`, outside the pipeline. */
  standalone?: IntegrationStack;
};

/** The whole CDK app: the pipeline (with its stages) and optionally one directly deployed stage. */
export function buildApp(app: App, deployment: Deployment, options: { standalone?: StageConfig } = {}): BuiltApp {
  const pipeline = new PipelineStack(app, PIPELINE_STACK_ID, {
    pipeline: deployment.pipeline,
    stages: deployment.stages,
    env: { account: deployment.pipeline.account, region: deployment.pipeline.region },
    description: 'Loyalty points bridge: delivery pipeline',
  });
  const stage = options.standalone;
  const standalone = stage
    ? new IntegrationStack(app, integrationStackName(stage), {
        config: stage,
        stackName: integrationStackName(stage),
        env: { account: stage.account, region: stage.region },
        description: `Loyalty points bridge (${stage.stageName}, deployed directly)`,
        terminationProtection: stage.production,
      })
    : undefined;
  applyChecks(app);
  return standalone ? { pipeline, standalone } : { pipeline };
}
