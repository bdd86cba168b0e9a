import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnElement, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { BuildSpec, CfnProject, ComputeType, LinuxBuildImage } from 'aws-cdk-lib/aws-codebuild';
import { type CfnPipeline, PipelineType } from 'aws-cdk-lib/aws-codepipeline';
import { CodePipeline, CodePipelineSource, ManualApprovalStep, ShellStep } from 'aws-cdk-lib/pipelines';
import type { Construct } from 'constructs';
import type { PipelineConfig, StageConfig } from '../config/index.js';
import { REPO_ROOT } from '../paths.js';
import { IntegrationStage } from './integration-stack.js';

export type PipelineStackProps = StackProps & { pipeline: PipelineConfig; stages: StageConfig[] };

/**
 * The commands the synth step runs: the type check, the linter and every test must pass before anything
 * is synthesised (vitest and tsx strip types without checking them, so only `tsc` stops a type error). `npm audit`
 * runs here because the build has the advisory service the development machines lack: a
 * high-severity advisory in a production dependency fails the build (dev tools do not ship).
 */
export const SYNTH_COMMANDS = [
  'npm ci',
  'npm audit --omit=dev --audit-level=high',
  'npm run typecheck',
  'npm run lint',
  'npm test',
  'npx cdk synth',
] as const;

/**
 * What the build image lacks for `npm test`: a browser for the console's browser test (puppeteer-core
 * downloads none; test/support/browser.ts finds it on PATH as `google-chrome`). CodeBuild's
 * standard:7.0 is Ubuntu 22.04 without one, and Ubuntu's own chromium package is only a snap stub
 * that cannot run in a build container: Google's .deb it is, with its dependencies from apt.
 */
export const BUILD_INSTALL_COMMANDS = [
  'wget -q -O /tmp/google-chrome.deb https://dl.google.com/linux/direct/google-chrome-stable_current_amd64.deb',
  'apt-get update -qq',
  'apt-get install -y -qq --no-install-recommends /tmp/google-chrome.deb',
  'google-chrome --version',
] as const;

/**
 * The CLI the pipeline's self-mutation and asset steps install. Pinned to the devDependency: the
 * registry's `latest` tag of aws-cdk points to an older major that cannot read this cloud assembly.
 */
function pinnedCliVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  const version = pkg.devDependencies?.['aws-cdk'];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error('package.json must pin devDependencies["aws-cdk"] to an exact version');
  }
  return version;
}

function stageId(stageName: string): string {
  return stageName
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * CDK Pipelines: source from a repository connection, synth (npm ci, tests, cdk synth), then each
 * stage in order; a production stage waits for a manual approval. Self-mutating: a change to the
 * pipeline itself is applied by the pipeline before it deploys anything else.
 */
export class PipelineStack extends Stack {
  readonly pipeline: CodePipeline;
  /** In deployment order. */
  readonly stages: IntegrationStage[] = [];

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { pipeline: config } = props;
    const source = CodePipelineSource.connection(config.repository, config.branch, {
      connectionArn: config.connectionArn,
      triggerOnPush: true,
    });
    this.pipeline = new CodePipeline(this, 'Pipeline', {
      pipelineName: 'loyalty-points-bridge',
      pipelineType: PipelineType.V2,
      selfMutation: true,
      // Stages live in other accounts: artifacts are encrypted with a key they are granted, rotated yearly.
      crossAccountKeys: true,
      enableKeyRotation: true,
      cliVersion: pinnedCliVersion(),
      publishAssetsInParallel: false,
      synth: new ShellStep('Synth', {
        input: source,
        installCommands: [...BUILD_INSTALL_COMMANDS],
        commands: [...SYNTH_COMMANDS],
        env: { CDK_DISABLE_VERSION_CHECK: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      }),
      codeBuildDefaults: {
        buildEnvironment: { buildImage: LinuxBuildImage.STANDARD_7_0, computeType: ComputeType.SMALL },
        // Node 20 is past its end of life; 22 is the newest runtime standard:7.0 documents.
        partialBuildSpec: BuildSpec.fromObject({
          phases: { install: { 'runtime-versions': { nodejs: '22' } } },
        }),
      },
    });

    for (const stage of props.stages) {
      const pre = stage.production
        ? [
            new ManualApprovalStep(`Approve-${stage.stageName}`, {
              comment: `Deploy to ${stage.stageName}? Check the previous stage's alarms and DLQ first.`,
            }),
          ]
        : [];
      const deployed = new IntegrationStage(this, stageId(stage.stageName), {
        config: stage,
        env: { account: stage.account, region: stage.region },
      });
      this.pipeline.addStage(deployed, { pre });
      this.stages.push(deployed);
    }
    // Build now so the generated roles exist and their findings can be acknowledged precisely.
    this.pipeline.buildPipeline();
    rollBackDeployStagesOnFailure(
      this.pipeline,
      props.stages.map((s) => stageId(s.stageName)),
    );
    acknowledgePipelineFindings(this, this.pipeline, config);
  }
}

/**
 * A deploy stage that fails rolls itself back to the last execution that succeeded in it (CodePipeline
 * V2 stage rollback, `OnFailure: ROLLBACK`): CloudFormation already undoes a failed stack update, and
 * this also undoes a stage whose stack deployed but whose later action failed. The rollback redeploys
 * that execution's own artefacts, which the artifact bucket keeps (no expiry). docs/runbook.md,
 * "Rolling back a bad deploy".
 */
function rollBackDeployStagesOnFailure(pipeline: CodePipeline, deployStages: string[]): void {
  const cfn = pipeline.pipeline.node.defaultChild as CfnPipeline;
  pipeline.pipeline.stages.forEach((stage, index) => {
    if (deployStages.includes(stage.stageName)) cfn.addPropertyOverride(`Stages.${index}.OnFailure`, { Result: 'ROLLBACK' });
  });
}

/**
 * Findings on what CDK Pipelines generates (roles of the pipeline, its CodeBuild projects, self
 * mutation and asset publishing). Each is acknowledged by its exact finding id, so a new wildcard
 * appearing after an upgrade fails synth instead of slipping through.
 */
function acknowledgePipelineFindings(stack: Stack, pipeline: CodePipeline, config: PipelineConfig): void {
  const ack = (id: string, reason: string) => Validations.of(pipeline).acknowledge({ id, reason });
  const logicalId = (element: CfnElement) => stack.resolve(element.logicalId) as string;
  const where = `${config.region}:${config.account}`;

  ack(
    'AwsSolutions-S1',
    'The artifact bucket is private to this pipeline (encrypted with its KMS key, TLS only); object access is ' +
      'recorded by CloudTrail. A separate access-log bucket would add a bucket with the same finding.',
  );
  const artifactGrant =
    "CDK grant on the pipeline's own artifact bucket and its KMS key only: the object-level wildcards are the " +
    'read/write action groups of that single bucket and key, not of any other resource.';
  for (const action of [
    's3:GetObject*',
    's3:GetBucket*',
    's3:List*',
    's3:DeleteObject*',
    's3:Abort*',
    'kms:ReEncrypt*',
    'kms:GenerateDataKey*',
  ]) {
    ack(`AwsSolutions-IAM5[Action::${action}]`, artifactGrant);
  }
  ack(`AwsSolutions-IAM5[Resource::<${logicalId(pipeline.pipeline.artifactBucket.node.defaultChild as CfnElement)}.Arn>/*]`, artifactGrant);
  for (const project of pipeline.node.findAll().filter((c): c is CfnProject => c instanceof CfnProject)) {
    const ref = `<${logicalId(project)}>`;
    ack(
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:${where}:log-group:/aws/codebuild/${ref}:*]`,
      'A CodeBuild project writes the log streams of its own log group; stream names are generated per build.',
    );
    ack(
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codebuild:${where}:report-group/${ref}-*]`,
      'A CodeBuild project may create test report groups named after itself only.',
    );
  }
  ack(
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:${where}:log-group:/aws/codebuild/*]`,
    'The asset publishing role is shared by generated CodeBuild projects whose names are not known in advance; ' +
      'it is limited to CodeBuild log groups of this account and region.',
  );
  ack(
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codebuild:${where}:report-group/*]`,
    'The asset publishing role is shared by generated CodeBuild projects; limited to report groups of this account and region.',
  );
  ack(
    `AwsSolutions-IAM5[Resource::arn:*:iam::${config.account}:role/*]`,
    'Self-mutation and asset publishing assume the CDK bootstrap roles, restricted by a condition on their ' +
      'aws-cdk:bootstrap-role tag; the role names carry a per-bootstrap qualifier not known here.',
  );
  ack(
    'AwsSolutions-IAM5[Resource::*]',
    'cloudformation:DescribeStacks and s3:ListBucket for CDK bootstrap lookups (stack and bucket names unknown ' +
      'before bootstrap); no write action is granted on *.',
  );
}
