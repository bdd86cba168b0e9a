import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp, type BuiltApp } from '../../../infra/build-app.js';
import { type Deployment, loadDeployment, parseStageConfig } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';
import type { IntegrationStack } from '../../../infra/stacks/integration-stack.js';
import type { Json } from '../../support/json.js';

export type SynthesisedApp = {
  deployment: Deployment;
  built: BuiltApp;
  outdir: string;
  /** The integration stack of each pipeline stage, by stage name, and its template. */
  stages: Map<string, { stack: IntegrationStack; template: Template }>;
  pipelineTemplate: Template;
  dispose(): void;
};

/**
 * The real app as `cdk synth` builds it (infra/pipeline.json and the stage files it lists, cdk-nag
 * included), with its output in a temporary directory. CDK's built-in CloudFormation validation (a
 * WebAssembly linter costing seconds per synthesis) is left to `cdk synth` itself, which the
 * pipeline runs right after the tests.
 */
export function buildRealApp(): { app: App; built: BuiltApp; outdir: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'infra-test-'));
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  return { app, built: buildApp(app, loadDeployment(INFRA_DIR)), outdir };
}

/** Builds and synthesises the real app. Seconds of work: call once per test file. */
export function synthesiseRealApp(): SynthesisedApp {
  const { app, built, outdir } = buildRealApp();
  const deployment = loadDeployment(INFRA_DIR);
  // Throws if any cdk-nag finding is not acknowledged.
  app.synth();
  const stages = new Map<string, { stack: IntegrationStack; template: Template }>();
  for (const { stack } of built.pipeline.stages) {
    stages.set(stack.config.stageName, { stack, template: Template.fromStack(stack) });
  }
  return {
    deployment,
    built,
    outdir,
    stages,
    pipelineTemplate: Template.fromStack(built.pipeline),
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}

/**
 * The dev stage with `sources` added to its own, built as a standalone stack and synthesised by the real
 * app (cdk-nag included, which throws on any unacknowledged finding). Call once per test file.
 */
export function synthesiseDevStageWith(
  sources: Record<string, Json>,
  /** Other stage settings (`reconcile`, ...). */
  extra: Record<string, Json> = {},
): { template: Template; dispose(): void } {
  const outdir = mkdtempSync(join(tmpdir(), 'infra-stage-'));
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  const dev = JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'dev.json'), 'utf8'));
  const stage = parseStageConfig({ ...dev, ...extra, sources: { ...dev.sources, ...sources } });
  const built = buildApp(app, loadDeployment(INFRA_DIR), { standalone: stage });
  app.synth();
  return { template: Template.fromStack(built.standalone!), dispose: () => rmSync(outdir, { recursive: true, force: true }) };
}
