import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesiseRealApp, type SynthesisedApp } from '../support/app.js';
import type { Json } from '../../support/json.js';
import { BROWSER_NAMES } from '../../support/browser.js';

let app: SynthesisedApp;
beforeAll(() => {
  app = synthesiseRealApp();
});
afterAll(() => app?.dispose());

type Action = {
  Name: string;
  ActionTypeId: { Category: string; Provider: string };
  RunOrder?: number;
  Configuration?: Record<string, Json>;
};
type PipelineStage = { Name: string; Actions: Action[] };

function pipelineStages(): PipelineStage[] {
  const pipelines = Object.values(app.pipelineTemplate.findResources('AWS::CodePipeline::Pipeline'));
  expect(pipelines).toHaveLength(1);
  return (pipelines[0] as { Properties: { Stages: PipelineStage[] } }).Properties.Stages;
}

function stageNamed(name: string): PipelineStage {
  const stage = pipelineStages().find((s) => s.Name === name);
  if (!stage)
    throw new Error(
      `no pipeline stage ${name}: ${pipelineStages()
        .map((s) => s.Name)
        .join(', ')}`,
    );
  return stage;
}

/** The buildspec of the CodeBuild project a pipeline action runs. */
function buildSpecOf(action: Action): string {
  const projectId = action.Configuration!.ProjectName.Ref as string;
  const project = app.pipelineTemplate.findResources('AWS::CodeBuild::Project')[projectId] as {
    Properties: { Source: { BuildSpec: string } };
  };
  return project.Properties.Source.BuildSpec;
}

describe('pipeline', () => {
  it('is a V2 pipeline', () => {
    app.pipelineTemplate.hasResourceProperties('AWS::CodePipeline::Pipeline', { PipelineType: 'V2' });
  });

  it('runs source, build, self-mutation, assets, staging, then production', () => {
    expect(pipelineStages().map((s) => s.Name)).toEqual(['Source', 'Build', 'UpdatePipeline', 'Assets', 'Staging', 'Production']);
  });

  it('takes its source from the configured repository connection and branch', () => {
    const { pipeline } = app.deployment;
    const [source] = stageNamed('Source').Actions;
    expect(source).toMatchObject({
      ActionTypeId: { Category: 'Source', Provider: 'CodeStarSourceConnection' },
      Configuration: { ConnectionArn: pipeline.connectionArn, FullRepositoryId: pipeline.repository, BranchName: pipeline.branch },
    });
  });

  it('synthesises only after npm ci and the whole test suite pass', () => {
    const [synth] = stageNamed('Build').Actions;
    const spec = buildSpecOf(synth!);
    const commands = ['npm ci', 'npm test', 'npx cdk synth'].map((c) => spec.indexOf(`"${c}"`));
    expect(commands.every((i) => i >= 0)).toBe(true);
    expect([...commands].sort((a, b) => a - b)).toEqual(commands);
  });

  it('type-checks and lints the code before testing and synthesising it', () => {
    const [synth] = stageNamed('Build').Actions;
    const spec = buildSpecOf(synth!);
    const commands = ['npm ci', 'npm run typecheck', 'npm run lint', 'npm test', 'npx cdk synth'].map((c) => spec.indexOf(`"${c}"`));
    expect(commands.every((i) => i >= 0)).toBe(true);
    expect([...commands].sort((a, b) => a - b)).toEqual(commands);
  });

  it('fails the build on a high-severity advisory in a production dependency (npm audit), before synthesising', () => {
    const [synth] = stageNamed('Build').Actions;
    const spec = buildSpecOf(synth!);
    const commands = ['npm ci', 'npm audit --omit=dev --audit-level=high', 'npx cdk synth'].map((c) => spec.indexOf(`"${c}"`));
    expect(commands.every((i) => i >= 0)).toBe(true);
    expect([...commands].sort((a, b) => a - b)).toEqual(commands);
  });

  it('installs a browser the console test finds (on PATH by one of its names) before running the tests', () => {
    const [synth] = stageNamed('Build').Actions;
    const spec = JSON.parse(buildSpecOf(synth!)) as { phases: { install: { commands: string[] }; build: { commands: string[] } } };
    const install = spec.phases.install.commands;
    const browser = BROWSER_NAMES.find((name) => install.includes(`${name} --version`));
    expect(browser).toBeDefined();
    expect(install.some((c) => /apt-get install .*google-chrome/.test(c))).toBe(true);
    // The install phase runs before the build phase's npm test.
    expect(spec.phases.build.commands).toContain('npm test');
  });

  it('rolls a failed Staging or Production stage back to its last good execution, and no other stage', () => {
    const onFailure = Object.fromEntries(pipelineStages().map((s) => [s.Name, (s as { OnFailure?: unknown }).OnFailure]));
    expect(onFailure.Staging).toEqual({ Result: 'ROLLBACK' });
    expect(onFailure.Production).toEqual({ Result: 'ROLLBACK' });
    for (const name of ['Source', 'Build', 'UpdatePipeline', 'Assets']) expect(onFailure[name]).toBeUndefined();
  });

  it('keeps the artefacts of earlier executions to roll back to (no expiry on the artifact bucket)', () => {
    const buckets = Object.values(app.pipelineTemplate.findResources('AWS::S3::Bucket')) as {
      Properties?: { LifecycleConfiguration?: { Rules?: { ExpirationInDays?: number; Status?: string }[] } };
    }[];
    expect(buckets.length).toBeGreaterThan(0);
    for (const b of buckets) {
      const expiring = (b.Properties?.LifecycleConfiguration?.Rules ?? []).filter(
        (r) => r.Status !== 'Disabled' && r.ExpirationInDays !== undefined,
      );
      expect(expiring).toEqual([]);
    }
  });

  it('builds on a maintained Node.js LTS', () => {
    const [synth] = stageNamed('Build').Actions;
    expect(JSON.parse(buildSpecOf(synth!)).phases.install['runtime-versions']).toEqual({ nodejs: '22' });
  });

  it('updates itself with the pinned CDK CLI before deploying', () => {
    const [mutate] = stageNamed('UpdatePipeline').Actions;
    expect(mutate!.Name).toBe('SelfMutate');
    expect(buildSpecOf(mutate!)).toContain('npm install -g aws-cdk@2.1148.1');
  });

  it('waits for a manual approval before production, and only there', () => {
    const production = stageNamed('Production').Actions;
    const approval = production.find((a) => a.ActionTypeId.Category === 'Approval');
    expect(approval).toMatchObject({ ActionTypeId: { Provider: 'Manual' } });
    const deploys = production.filter((a) => a.ActionTypeId.Category === 'Deploy');
    expect(deploys.length).toBeGreaterThan(0);
    for (const deploy of deploys) expect(deploy.RunOrder!).toBeGreaterThan(approval!.RunOrder!);
    expect(stageNamed('Staging').Actions.filter((a) => a.ActionTypeId.Category === 'Approval')).toEqual([]);
  });

  it('deploys each stage into its own account with a change set', () => {
    for (const [name, config] of [
      ['Staging', app.deployment.stages[0]!],
      ['Production', app.deployment.stages[1]!],
    ] as const) {
      const deploys = stageNamed(name).Actions.filter((a) => a.ActionTypeId.Category === 'Deploy');
      expect(deploys.map((a) => a.Configuration!.ActionMode)).toEqual(['CHANGE_SET_REPLACE', 'CHANGE_SET_EXECUTE']);
      expect(deploys[0]!.Configuration!.StackName).toBe(`loyalty-bridge-${config.stageName}`);
      expect(JSON.stringify(deploys[0])).toContain(config.account);
    }
  });

  it('encrypts its artifacts with a rotated key shared with the stage accounts', () => {
    app.pipelineTemplate.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    app.pipelineTemplate.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          Match.objectLike({ ServerSideEncryptionByDefault: Match.objectLike({ SSEAlgorithm: 'aws:kms' }) }),
        ],
      },
    });
  });
});
