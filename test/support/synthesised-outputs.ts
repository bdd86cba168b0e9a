import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { synthesiseRealApp } from '../infra/support/app.js';

/**
 * A deployed stage's outputs as `cdk deploy --outputs-file` would write them, taken from the
 * synthesised template of the real app: the keys are CloudFormation's (never a copy written by hand),
 * the values what CloudFormation would resolve them to, with the physical resources a test provides
 * (a dynalite table, a local queue URL). AWS itself cannot run here: this stands in for
 * CloudFormation's resolution only, the boundary the standards allow to replace.
 */

type TemplateJson = { Outputs?: Record<string, { Value: unknown }>; Resources: Record<string, { Type: string }> };

const templates = new Map<string, { stackName: string; region: string; template: TemplateJson }>();

/** The synthesised integration template of a pipeline stage (the app is synthesised once per test file). */
export function synthesisedStage(stage: string): { stackName: string; region: string; template: TemplateJson } {
  if (templates.size === 0) {
    const app = synthesiseRealApp();
    try {
      for (const [name, { stack, template }] of app.stages) {
        templates.set(name, { stackName: stack.stackName, region: stack.config.region, template: template.toJSON() as TemplateJson });
      }
    } finally {
      app.dispose();
    }
  }
  const found = templates.get(stage);
  if (found === undefined) throw new Error(`the app has no pipeline stage ${stage}`);
  return found;
}

export interface PhysicalResources {
  /** The physical id CloudFormation would give a resource's Ref (a table name, a queue URL, an API id). */
  ref(logicalId: string, type: string): string;
  /** The origin the stage's execute-api URLs are sent to instead (the local intake), as AWS_ENDPOINT_URL does for the SDK. */
  apiOrigin?: string;
}

function resolve(value: unknown, template: TemplateJson, region: string, physical: PhysicalResources): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, unknown>;
  if (typeof v.Ref === 'string') {
    if (v.Ref === 'AWS::Region') return region;
    if (v.Ref === 'AWS::URLSuffix') return 'amazonaws.com';
    const resource = template.Resources[v.Ref];
    if (resource === undefined) throw new Error(`output refers to unknown resource ${v.Ref}`);
    return physical.ref(v.Ref, resource.Type);
  }
  if (Array.isArray(v['Fn::Join'])) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => resolve(p, template, region, physical)).join(separator);
  }
  throw new Error(`cannot resolve ${JSON.stringify(value).slice(0, 80)}`);
}

/** Every output of the stage's stack, resolved against the given physical resources. */
export function stageOutputs(stage: string, physical: PhysicalResources): { stackName: string; outputs: Record<string, string> } {
  const { stackName, region, template } = synthesisedStage(stage);
  const outputs: Record<string, string> = {};
  for (const [key, output] of Object.entries(template.Outputs ?? {})) {
    const value = resolve(output.Value, template, region, physical);
    outputs[key] = physical.apiOrigin === undefined ? value : value.replace(/^https:\/\/[^/]+\.execute-api\.[^/]+/, physical.apiOrigin);
  }
  return { stackName, outputs };
}

/** Writes the outputs file `cdk deploy --outputs-file` writes (`{"<stack>": {"<key>": "<value>"}}`); returns its path. */
export function writeStageOutputsFile(dir: string, stage: string, physical: PhysicalResources): string {
  const { stackName, outputs } = stageOutputs(stage, physical);
  const file = join(dir, `${stage}-outputs.json`);
  writeFileSync(file, JSON.stringify({ [stackName]: outputs }, null, 2));
  return file;
}
