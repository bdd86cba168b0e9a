import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bootstrapCommands, sandboxStages } from '../../../infra/bootstrap-commands.js';
import { loadDeployment } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';

const DEPLOY_MD = readFileSync(new URL('../../../docs/deploy.md', import.meta.url), 'utf8');

/** The shell block of docs/deploy.md's "2. Bootstrap" section, line by line. */
function documentedBootstrap(): string[] {
  const section = DEPLOY_MD.slice(DEPLOY_MD.indexOf('## 2. Bootstrap'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/deploy.md: no sh block under "2. Bootstrap"');
  return block[1]!.trimEnd().split('\n');
}

describe('docs/deploy.md bootstrap commands', () => {
  const deployment = loadDeployment(INFRA_DIR);

  it('are exactly the commands made from infra/pipeline.json and the stage files', () => {
    expect(documentedBootstrap()).toEqual(bootstrapCommands(deployment, sandboxStages(deployment)));
  });

  it('bootstrap every stage file’s own account and region, and the tools account’s', () => {
    const targets = documentedBootstrap()
      .map((l) => /npx cdk bootstrap (aws:\/\/\S+)/.exec(l)?.[1])
      .filter((t) => t !== undefined);
    const wanted = [
      `aws://${deployment.pipeline.account}/${deployment.pipeline.region}`,
      ...[...deployment.stages, ...sandboxStages(deployment)].map((s) => `aws://${s.account}/${s.region}`),
    ];
    expect(new Set(targets)).toEqual(new Set(wanted));
  });
});
