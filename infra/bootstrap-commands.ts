/**
 * The `cdk bootstrap` commands of this deployment, from its own files: the tools account and region of
 * `infra/pipeline.json` and the account and region of each stage it deploys (`infra/stages/<stage>.json`).
 * docs/deploy.md shows exactly these (test/infra/config/bootstrap-commands.test.ts compares them), so
 * copying them never bootstraps another region than the stacks deploy to.
 *
 *   npx tsx infra/bootstrap-commands.ts
 */
import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Deployment, loadDeployment, loadStageConfig, type StageConfig } from './config/index.js';
import { INFRA_DIR } from './paths.js';

/**
 * `sandboxes`: stage files no pipeline deploys (`npx cdk deploy loyalty-bridge-dev -c stage=dev`, with
 * that account's own credentials: no trust needed).
 */
export function bootstrapCommands(deployment: Deployment, sandboxes: readonly StageConfig[] = []): string[] {
  const { pipeline, stages } = deployment;
  const lines = ['# the tools account that runs the pipeline', `npx cdk bootstrap aws://${pipeline.account}/${pipeline.region}`, ''];
  lines.push('# each stage account, trusting the tools account to deploy into it');
  // One command per account and region: two stages in one account share its bootstrap.
  const seen = new Set<string>();
  for (const stage of stages) {
    const target = `aws://${stage.account}/${stage.region}`;
    if (seen.has(target)) continue;
    seen.add(target);
    lines.push(
      `npx cdk bootstrap ${target} --trust ${pipeline.account} \\`,
      '  --cloudformation-execution-policies arn:aws:iam::aws:policy/AdministratorAccess',
    );
  }
  for (const stage of sandboxes) {
    const target = `aws://${stage.account}/${stage.region}`;
    if (seen.has(target)) continue;
    seen.add(target);
    lines.push('', `# the sandbox stage ${stage.stageName}, deployed directly (no pipeline)`, `npx cdk bootstrap ${target}`);
  }
  return lines;
}

/** The stage files in infra/stages that the pipeline does not deploy. */
export function sandboxStages(deployment: Deployment, dir: string = INFRA_DIR): StageConfig[] {
  const deployed = new Set(deployment.pipeline.stages);
  return readdirSync(join(dir, 'stages'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .filter((name) => !deployed.has(name))
    .sort()
    .map((name) => loadStageConfig(dir, name));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const deployment = loadDeployment(INFRA_DIR);
  for (const line of bootstrapCommands(deployment, sandboxStages(deployment))) console.log(line);
}
