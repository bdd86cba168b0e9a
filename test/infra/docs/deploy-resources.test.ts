import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionName } from '../../../infra/bundling.js';
import { buildApp } from '../../../infra/build-app.js';
import { loadDeployment } from '../../../infra/config/index.js';
import { BundledFunction } from '../../../infra/constructs/bundled-function.js';
import { FUNCTION_ENTRIES, INFRA_DIR, REPO_ROOT } from '../../../infra/paths.js';

/**
 * docs/deploy.md's resource table names every Lambda function a stage deploys, as `` `<file name>` λ ``
 * (the function's file in functions/, e.g. `process-events`). Read against the synthesised templates of
 * the pipeline's stages and against infra/paths.ts, so a function added later (one behind a setting no
 * example stage turns on included) fails here until its row is written.
 */

/** The function names in the first cells of the table that follows "Each stage is one CloudFormation stack". */
function documentedFunctions(): Set<string> {
  const text = readFileSync(join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
  const start = text.indexOf('| Resource');
  const table = text.slice(start, text.indexOf('\n\n', start));
  return new Set([...table.matchAll(/^\| `([a-z0-9-]+)` λ/gm)].map((m) => m[1]!));
}

const missingRow = (names: string[]) =>
  names.map((name) => `docs/deploy.md: add a row "| \`${name}\` λ | ... |" to the resource table (functions/${name}.ts)`);

describe("docs/deploy.md's resource table", () => {
  const documented = documentedFunctions();
  const outdir = mkdtempSync(join(tmpdir(), 'deploy-doc-'));
  /** Per stage, each Lambda function of its template by logical id: the file name of the function, or undefined when it is no BundledFunction. */
  const stages = new Map<string, Map<string, string | undefined>>();

  beforeAll(() => {
    // The templates' resources are what is read, not the code: assets are not bundled.
    const app = new App({ outdir, builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });
    const built = buildApp(app, loadDeployment(INFRA_DIR));
    app.synth();
    for (const { stack } of built.pipeline.stages) {
      const byLogicalId = new Map<string, string>();
      for (const c of stack.node.findAll())
        if (c instanceof BundledFunction)
          byLogicalId.set(Stack.of(c).getLogicalId(c.fn.node.defaultChild as CfnFunction), functionName(c.code));
      const functions = Object.keys(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
      stages.set(stack.config.stageName, new Map(functions.map((id) => [id, byLogicalId.get(id)])));
    }
  }, 120_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('has a row for every Lambda function of each pipeline stage’s synthesised template', () => {
    expect(stages.size).toBeGreaterThan(0);
    for (const [stage, functions] of stages) {
      expect(functions.size, stage).toBeGreaterThan(0);
      // Every function of the app is built as a BundledFunction; one that is not has no file name to look for.
      const unnamed = [...functions].filter(([, name]) => name === undefined).map(([id]) => `${stage}: ${id} is no BundledFunction`);
      expect(unnamed).toEqual([]);
      const names = [...new Set(functions.values())] as string[];
      expect(missingRow(names.filter((name) => !documented.has(name))), stage).toEqual([]);
    }
  });

  it('has a row for every function the app can build (infra/paths.ts), whichever settings turn it on', () => {
    const names = Object.keys(FUNCTION_ENTRIES).map((code) => functionName(code as keyof typeof FUNCTION_ENTRIES));
    expect(missingRow(names.filter((name) => !documented.has(name)))).toEqual([]);
  });

  it('names no function the app does not build (a row left after its function went)', () => {
    const names = new Set(Object.keys(FUNCTION_ENTRIES).map((code) => functionName(code as keyof typeof FUNCTION_ENTRIES)));
    expect([...documented].filter((name) => !names.has(name))).toEqual([]);
  });
});
